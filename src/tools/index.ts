import type { Tool } from "../core/tool.ts";
import { bash } from "./commands/bash.ts";
import { bashKill } from "./commands/bash-kill.ts";
import { bashOutput } from "./commands/bash-output.ts";
import { exitPlanMode } from "./exit-plan-mode.ts";
import { fileTools } from "./file-tools.ts";
import { todo } from "./todo.ts";
import { webFetch } from "./web-fetch.ts";

/** The tools a coding agent gets by default, in the order the model sees them. */
export const codingTools: Tool[] = [bash, bashOutput, bashKill, ...fileTools, todo, webFetch, exitPlanMode];

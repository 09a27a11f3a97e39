import type { Tool } from "../core/tool.ts";
import { bash } from "./bash.ts";
import { fileTools } from "./file-tools.ts";
import { todo } from "./todo.ts";
import { webFetch } from "./web-fetch.ts";

/** The tools a coding agent gets by default, in the order the model sees them. */
export const codingTools: Tool[] = [bash, ...fileTools, todo, webFetch];

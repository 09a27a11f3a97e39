// The model's tools for a session: the built-in ones, the task tool (whose children share this
// session), then MCP servers', which join as each server comes up (wiring/extensions.ts).
import type { PromptOverrides } from "../core/system-prompt.ts";
import type { Tool } from "../core/tool.ts";
import { findAgents, type NamedAgent } from "../prompts/agents.ts";
import type { AnswerSchema } from "../tools/answer-schema.ts";
import { finalAnswerTool } from "../tools/final-answer.ts";
import { codingTools } from "../tools/index.ts";
import { stateDir } from "./defaults.ts";
import type { Extensions } from "./extensions.ts";
import { systemPromptFor } from "./machine-prompt.ts";
import { DEFAULT_SUBAGENT_DEPTH, type SubagentSetup, taskToolFor } from "./subagents.ts";

type SystemPromptParts = Parameters<typeof systemPromptFor>;

/** The model's tools: the built-in ones, the task tool, then MCP servers' (now and as they come up). */
export function sessionTools(
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    warn(message: string): void;
    systemPrompt?: PromptOverrides;
    answerSchema?: AnswerSchema;
  },
  folder: {
    permissions: { policy: { home: string } };
    skills: SystemPromptParts[3];
    instructions: SystemPromptParts[4];
  },
  maxSubagentDepth: number | undefined,
  extensions: Pick<Extensions, "tools" | "onServerTools">,
  parentOf: Pick<
    SubagentSetup,
    "parent" | "settings" | "providerFor" | "parentSessionId" | "redact" | "hooks" | "placeFor"
  >,
): { tools: Tool[]; agents: NamedAgent[] } {
  const { cwd, env } = options;
  const ownTools = [...codingTools, ...extensions.tools];
  const agents = findAgents({ cwd, harnessHome: stateDir(env), home: folder.permissions.policy.home }, (message) =>
    options.warn(`warning: ${message}`),
  );
  const taskTool = taskToolFor({
    ...parentOf,
    cwd,
    env,
    agents,
    tools: ownTools,
    maxDepth: maxSubagentDepth ?? DEFAULT_SUBAGENT_DEPTH,
    // The user's --system-prompt and --append-system-prompt hold for children too; their part comes last.
    systemPrompt: (given, append, where) =>
      systemPromptFor(
        where,
        [...given],
        { ...options.systemPrompt, append: [options.systemPrompt?.append, append].filter(Boolean).join("\n\n") },
        folder.skills,
        folder.instructions,
      ),
  });
  // The task tool after the built-in ones, before MCP servers' (whose lists vary); the final-answer
  // tool last, for this agent only (a subagent's answer is its report to the parent, in prose).
  const answer = options.answerSchema ? [finalAnswerTool(options.answerSchema)] : [];
  const tools = [...(taskTool ? [...codingTools, taskTool, ...extensions.tools] : ownTools), ...answer];
  // An MCP server that comes up later adds its tools to the model's and to those children may be given.
  extensions.onServerTools((added) => {
    ownTools.push(...added);
    tools.push(...added);
  });
  return { tools, agents };
}

import { z } from "zod";
import type { AgentEvent, RunResult } from "../core/events.ts";
import { addSpent, type ModelUsage } from "../core/messages.ts";
import { slots } from "../core/run-tools.ts";
import { defineTool, type Tool, type ToolOutput } from "../core/tool.ts";
import { countOf, cutMiddle, cutWithEllipsis, formatTokens } from "../shared/helpers.ts";

/** Subagents of one agent running at once; further task calls wait for a free place, in order. */
export const MAX_CONCURRENT_SUBAGENTS = 4;
/** Bytes kept from each end of a long answer: the parent gets a result, not a transcript. */
const ANSWER_KEEP_BYTES = 8 * 1024;
/** Named agents listed in the tool's description; each costs a line on every request. */
const MAX_LISTED_AGENTS = 20;
/** Characters of a named agent's description in that list. */
const LISTED_DESCRIPTION_CHARS = 100;

/** A named agent as the task tool lists it. */
export interface TaskAgent {
  name: string;
  description: string;
}

/** What the parent asks of a subagent. */
export interface ChildRequest {
  prompt: string;
  agent?: string;
  tools?: string[];
  /** `worktree`: the child works in a git worktree of its own (wiring/subagent-worktree.ts). */
  isolation?: "worktree";
  /** The id of the parent's task call (the child's session file names it). */
  callId: string;
}

/** A subagent that has started: its name, its session, and its run's events (ending in its `done`). */
export interface StartedChild {
  agent: string;
  sessionId: string;
  events: AsyncGenerator<AgentEvent, RunResult>;
  /** Called once the run has ended, however it ended: a line for the result (where a worktree child's work is). */
  finish?: () => string;
}

/** Starts subagents; `{ error }` is a request it cannot honour (an unknown agent or tool), told to the model. */
export type StartChild = (request: ChildRequest, signal: AbortSignal) => Promise<StartedChild | { error: string }>;

const input = z.object({
  prompt: z.string().min(1).describe("Everything it needs: it sees nothing else of this conversation"),
  agent: z.string().optional().describe("A named agent"),
  tools: z.array(z.string()).optional().describe("Tool names (default: read-only ones)"),
  isolation: z
    .enum(["worktree"])
    .optional()
    .describe("worktree: it works in a new git worktree from the last commit; the result names its branch"),
});

/**
 * The `task` tool: runs a subagent with a fresh context on a prompt the model writes, and
 * returns its final answer and usage (not its transcript). The session builds the child
 * (src/wiring/subagents.ts); this file owns what the model sees and gets back. Its events reach the
 * run's stream wrapped as `subagent` events carrying this call's id.
 */
export function createTaskTool(agents: readonly TaskAgent[], start: StartChild): Tool {
  const inPlace = slots(MAX_CONCURRENT_SUBAGENTS);
  return defineTool({
    name: "task",
    description: describeTask(agents),
    kind: "read", // it does nothing itself: each of the subagent's calls is approved on its own
    // Without named agents there is nothing to name: the field is left out of what every request carries.
    input: (agents.length > 0 ? input : input.omit({ agent: true })) as typeof input,
    effects: () => ({}), // each of the subagent's calls declares its own
    describe: (call) => `task${call.agent ? ` (${call.agent})` : ""}: ${firstLine(call.prompt)}`,
    run: (call, context) =>
      inPlace(async () => {
        const started = await start({ ...call, callId: context.callId ?? "" }, context.signal);
        if ("error" in started) return { isError: true, content: `Error: ${started.error}`, summary: "not started" };
        const { agent, events } = started;
        // What the child spent, by model, from its own usage events (its subagents' come as its batch's).
        let spent: ModelUsage[] = [];
        let childModel = "";
        let step = await events.next();
        let finished: string | undefined;
        try {
          for (; !step.done; step = await events.next()) {
            const event = step.value;
            if (event.type === "start") childModel = event.model;
            if (event.type === "usage") spent = addSpent(spent, event.model ?? childModel, event.usage);
            context.emit?.(
              event.type === "subagent"
                ? event
                : { type: "subagent", parentToolCallId: context.callId ?? "", agent, event },
            );
          }
        } finally {
          if (!step.done) await events.return(undefined as unknown as RunResult);
          finished = started.finish?.();
        }
        const result = resultFor(agent, started.sessionId, step.value);
        return { ...result, content: [result.content, finished].filter(Boolean).join("\n"), spent };
      }),
  });
}

function describeTask(agents: readonly TaskAgent[]): string {
  const base =
    "Delegate a self-contained task to a subagent with a fresh context; you get its final answer. Calls in one reply run in parallel.";
  if (agents.length === 0) return base;
  const listed = agents
    .slice(0, MAX_LISTED_AGENTS)
    .map((agent) => `\n- ${agent.name}: ${cutWithEllipsis(agent.description, LISTED_DESCRIPTION_CHARS)}`);
  return `${base} Named agents:${listed.join("")}`;
}

/** The answer, bounded, and a line with how the run went and where its full record is. */
function resultFor(agent: string, sessionId: string, done: RunResult): ToolOutput {
  const usage = `${countOf(done.turns, "turn")}, ${formatTokens(done.usage.input + done.usage.cacheRead)} in, ${formatTokens(done.usage.output)} out`;
  const footer = `[subagent ${agent}: ${usage}; session ${sessionId}]`;
  const answer = cutMiddle(done.answer, ANSWER_KEEP_BYTES);
  switch (done.reason) {
    case "stop":
      return { content: `${answer}\n\n${footer}`, summary: `${agent}: ${usage}` };
    case "max_turns":
      return {
        content: `${answer}\n\nThe subagent stopped at its turn limit before finishing.\n${footer}`,
        summary: `${agent}: turn limit`,
      };
    case "aborted":
      return { isError: true, content: `The subagent was interrupted.\n${footer}`, summary: `${agent}: interrupted` };
    case "error":
      return {
        isError: true,
        content: `The subagent failed: ${done.error ?? "unknown error"}\n${footer}`,
        summary: `${agent}: failed`,
      };
    default: {
      const unhandled: never = done.reason;
      return unhandled;
    }
  }
}

function firstLine(text: string): string {
  return cutWithEllipsis(text.trim().split("\n")[0], 80);
}

// Subagents: the children the `task` tool starts, built from the session that owns the tool.
// A child is a fresh conversation over the parent agent's own options (createSession's): the
// same provider, approvals and session rules, sandbox, environment, secrets, hooks and context
// window; its abort signal is the parent's call's, so an interrupt stops every child. It has its
// own tools (a subset), its own turn limit and its own session file, whose header links it to
// the parent's session and task call; its events are redacted at the same point as the parent's.
import { Agent } from "../core/agent.ts";
import type { AgentEvent, RunResult } from "../core/events.ts";
import { hookContext } from "../core/hook-context.ts";
import type { Provider } from "../core/provider.ts";
import type { Tool } from "../core/tool.ts";
import type { CommandHooks } from "../hooks/command-hooks.ts";
import type { NamedAgent } from "../prompts/agents.ts";
import type { ProviderSettings } from "../providers/index.ts";
import type { SessionRecorder } from "../session/session-recorder.ts";
import { type ChildRequest, createTaskTool, type StartedChild } from "../tools/task.ts";
import { startRecorder } from "./stored-sessions.ts";
import {
  finishIsolatedChild,
  type IsolatedChild,
  isolateChild,
  type PlaceFor,
  recordChildSession,
} from "./subagent-worktree.ts";

/** Model calls one subagent may make (the parent's `--max-turns` caps it too). */
export const SUBAGENT_MAX_TURNS = 30;
/**
 * Levels of subagents below the main agent unless config.json's `maxSubagentDepth` says
 * otherwise: 1 means children cannot start their own; 0 means no task tool at all.
 */
export const DEFAULT_SUBAGENT_DEPTH = 1;
/**
 * A child's tools when neither the call nor a named agent names any: reading and searching.
 * Named, not taken by kind: todo (the parent's plan) and bash_output / bash_kill (the parent's
 * background processes) are of kind read too, and are not a child's business.
 */
const DEFAULT_CHILD_TOOLS = ["read_file", "list_files", "grep", "glob"];
/** Claude Code's model names for "the parent's model" (`inherit`) and its own model families. */
const PARENT_MODEL_ALIASES = new Set(["inherit", "sonnet", "opus", "haiku"]);
/** What a child is told besides the parent's system prompt. */
const SUBAGENT_NOTE =
  "You are a subagent: another agent gave you this task. Do it with your tools, then reply with a self-contained final answer: it is all the other agent will see.";

/** What the session gives its task tool to build children with. */
export interface SubagentSetup {
  cwd: string;
  env: NodeJS.ProcessEnv;
  agents: readonly NamedAgent[];
  /** The parent agent; its options (provider, approvals, sandbox, hooks) are the child's. */
  parent: () => Agent;
  /** The tools a child may be given, the task tool excepted. */
  tools: readonly Tool[];
  /** config.json `maxSubagentDepth`. */
  maxDepth: number;
  settings: () => ProviderSettings;
  providerFor(settings: ProviderSettings): Promise<Provider>;
  /** The session's system prompt for these tools, with `append` at its end, for a child working in `cwd`. */
  systemPrompt(tools: readonly Tool[], append: string, cwd: string): string;
  /** Builds the place of a child with a workspace of its own (isolation: worktree). */
  placeFor: PlaceFor;
  parentSessionId: () => string;
  /** The session's one redaction point (create-session.ts `outgoing`). */
  redact<R>(events: AsyncGenerator<AgentEvent, R>): AsyncGenerator<AgentEvent, R>;
  /** The session's SubagentStart and SubagentStop hooks. */
  hooks: Pick<CommandHooks, "subagentStart" | "subagentStop">;
}

/** What hooks are told a child is (`agent_type`): its named agent, else Claude Code's name for the default one. */
const DEFAULT_AGENT_TYPE = "general-purpose";

/** The task tool whose children are `depth` levels below the main agent; none past the limit. */
export function taskToolFor(setup: SubagentSetup, depth = 1): Tool | undefined {
  if (depth > setup.maxDepth) return undefined;
  return createTaskTool(setup.agents, (request, signal) => startChild(setup, depth, request, signal));
}

async function startChild(
  setup: SubagentSetup,
  depth: number,
  request: ChildRequest,
  signal: AbortSignal,
): Promise<StartedChild | { error: string }> {
  const named = request.agent === undefined ? undefined : setup.agents.find((agent) => agent.name === request.agent);
  if (request.agent !== undefined && !named) {
    const names = setup.agents.map((agent) => agent.name).join(", ") || "none are defined";
    return { error: `there is no agent named "${request.agent}" (named agents: ${names})` };
  }
  // The child's own children link to the child's session, which starts once the request is sound.
  let recorder: SessionRecorder | undefined;
  const asParent = { ...setup, parentSessionId: () => recorder?.id ?? "" };
  const tools = toolsFor(asParent, depth, request.tools ?? named?.tools, request.tools !== undefined);
  if ("error" in tools) return tools;
  const parent = setup.parent().options;
  const model = named?.model;
  const isParentModel = !model || PARENT_MODEL_ALIASES.has(model);
  const settings = isParentModel ? setup.settings() : { ...setup.settings(), model };
  const provider = isParentModel ? parent.provider : await setup.providerFor(settings);
  // A worktree of its own, last: nothing above may fail and leave it behind.
  let isolated: IsolatedChild | undefined;
  if ((request.isolation ?? named?.isolation) === "worktree") {
    const made = isolateChild(setup.cwd, setup.placeFor);
    if ("error" in made) return made;
    isolated = made;
  }
  const cwd = isolated?.place.cwd ?? setup.cwd;
  recorder = startRecorder(setup.env, cwd, settings, undefined, {
    sessionId: setup.parentSessionId(),
    toolCallId: request.callId,
  });
  if (isolated) recordChildSession(isolated, recorder.id);
  const child = new Agent({
    ...parent,
    provider,
    tools: tools.given,
    system: setup.systemPrompt(tools.given, [SUBAGENT_NOTE, named?.prompt].filter(Boolean).join("\n\n"), cwd),
    maxTurns: Math.min(SUBAGENT_MAX_TURNS, parent.maxTurns ?? SUBAGENT_MAX_TURNS),
    sessionId: recorder.id,
    ...(isolated ? { cwd, approve: isolated.place.approve } : {}),
    toolContext: {
      ...parent.toolContext,
      ...isolated?.place.context,
      spillDir: recorder.writer.spillDir,
      sessionFile: recorder.writer.path,
    },
    takeQueuedMessages: undefined, // what the person types is for the main agent
    reminder: undefined, // the plan-mode reminder asks for exit_plan_mode, which is the main agent's call
  });
  const agentType = named?.name ?? DEFAULT_AGENT_TYPE;
  const context = await setup.hooks.subagentStart(recorder.id, agentType);
  const run = stopHooked(child.prompt(withStartContext(request.prompt, context), signal), (answer) =>
    setup.hooks.subagentStop(recorder?.id ?? "", agentType, answer),
  );
  return {
    agent: named?.name ?? "task",
    sessionId: recorder.id,
    events: recorded(setup.redact(run), recorder),
    ...(isolated ? { finish: onceOnly(() => finishIsolatedChild(setup.cwd, isolated)) } : {}),
  };
}

/**
 * The child's tools: those asked for (by the call, else by the named agent), else the read-only
 * ones. A call may only ask for tools the parent has; a named agent's file may name tools this
 * session lacks (another agent's, an MCP server not configured here), which are left out.
 */
function toolsFor(
  setup: SubagentSetup,
  depth: number,
  names: readonly string[] | undefined,
  isAskedByCall: boolean,
): { given: Tool[] } | { error: string } {
  const nested = names?.includes("task") ? taskToolFor(setup, depth + 1) : undefined;
  if (names === undefined) return { given: setup.tools.filter((tool) => DEFAULT_CHILD_TOOLS.includes(tool.name)) };
  if (isAskedByCall && names.includes("task") && !nested)
    return {
      error: `a subagent cannot start subagents of its own: ${setup.maxDepth} level${setup.maxDepth === 1 ? " is" : "s are"} allowed (config.json maxSubagentDepth)`,
    };
  const unknown = names.filter((name) => name !== "task" && !setup.tools.some((tool) => tool.name === name));
  if (isAskedByCall && unknown.length > 0)
    return {
      error: `no tool named ${unknown.join(", ")} to give a subagent; choose among ${setup.tools.map((tool) => tool.name).join(", ")}`,
    };
  const given = setup.tools.filter((tool) => names.includes(tool.name));
  return { given: nested ? [...given, nested] : given };
}

/** The SubagentStart hooks' context after the task, tagged as the hook's words (as UserPromptSubmit's are). */
function withStartContext(prompt: string, context: string[]): string {
  return prompt + context.map((text) => hookContext("subagent-start-hook", text)).join("");
}

/** The child's run, then its SubagentStop hooks, told the child's final answer. */
async function* stopHooked(
  run: AsyncGenerator<AgentEvent, RunResult>,
  stop: (answer: string) => Promise<void>,
): AsyncGenerator<AgentEvent, RunResult> {
  const result = yield* run;
  await stop(result.answer);
  return result;
}

/** The child's events as its session file records them; the file is closed when the run ends. */
async function* recorded(
  events: AsyncGenerator<AgentEvent, RunResult>,
  recorder: SessionRecorder,
): AsyncGenerator<AgentEvent, RunResult> {
  try {
    for (let step = await events.next(); ; step = await events.next()) {
      if (step.done) return step.value;
      recorder.record(step.value);
      yield step.value;
    }
  } finally {
    await events.return(undefined as unknown as RunResult); // a parent that stops early stops the child
    recorder.close();
  }
}

/** `finish` runs once, whoever calls it first. */
function onceOnly(finish: () => string): () => string {
  let said: string | undefined;
  return () => {
    said ??= finish();
    return said;
  };
}

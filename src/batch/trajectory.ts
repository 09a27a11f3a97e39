// Each attempt's trajectory in a format other tools read: mini-swe-agent's `*.traj.json`,
// `trajectory_format: "mini-swe-agent-1.1"` (mini-swe-agent 2.x; checked against 2.4.6, commit
// a83fcae8: `DefaultAgent.serialize` in src/minisweagent/agents/default.py, the tool-call messages
// of src/minisweagent/models/utils/actions_toolcall.py, and docs/usage/output_files.md,
// https://github.com/SWE-agent/mini-swe-agent/blob/main/docs/usage/output_files.md).
// *Decision*: this format rather than SWE-agent's `.traj`: mini-swe-agent is what SWE-bench's
// own bash-only leaderboard runs and what `mini-extra inspector` browses (any `*.traj.json` under
// a folder), its messages are OpenAI chat messages, so our tool calls and results map one to one
// (1.1 records native tool calls: `tool_calls` on the assistant's message, `role: "tool"` with
// `tool_call_id` for each result), and it is one file per instance. SWE-agent's `.traj` wants
// each step split into thought/action/observation, which a reply with several tool calls has not.
// Written from the attempt's session (already redacted where it was written) and its result line.
import { assertNever, type Message } from "../core/messages.ts";
import { folderNameOf } from "./batch-task.ts";
import type { TaskResult } from "./task-result.ts";

/** The format's own name for itself, as mini-swe-agent 2.x writes it. */
const TRAJECTORY_FORMAT = "mini-swe-agent-1.1";

/** One message of the conversation as the session recorded it, with when. */
export interface RecordedMessage {
  at: string;
  message: Message;
  /** The summary a compaction put in place of the messages above (they stay in the trajectory). */
  isCompaction?: boolean;
}

/** A message of the trajectory: an OpenAI chat message plus mini-swe-agent's `extra`. */
type TrajectoryMessage = Record<string, unknown> & { role: string; extra: Record<string, unknown> };

interface Trajectory {
  info: {
    model_stats: { instance_cost: number; api_calls: number };
    config: Record<string, unknown>;
    mini_version: string;
    exit_status: string;
    submission: string;
    harness: Record<string, unknown>;
  };
  messages: TrajectoryMessage[];
  trajectory_format: typeof TRAJECTORY_FORMAT;
  instance_id: string;
}

interface TrajectoryInput {
  /** The attempt's messages in the order its session recorded them (empty when it never started). */
  messages: readonly RecordedMessage[];
  /** The attempt's own result (for a best-of-N task, this one run's, not the task's line). */
  result: TaskResult;
  /** Which run of a best-of-N attempt (2, 3, ...; absent for the first). */
  copy?: number;
  /** The submission: the attempt's diff, keys taken out (the caller redacts it). */
  submission: string;
  harnessVersion: string;
  /** Prices one reply's tokens (each assistant message's `extra.cost`), when the model's price is known. */
  price?(model: string, usage: NonNullable<Extract<Message, { role: "assistant" }>["usage"]>): number | undefined;
}

/**
 * The trajectory of one attempt. `exit_status` is the attempt's status as its result line says it
 * (`ok`, `failed`, `max_turns`, ...; *decision*: mini-swe-agent's own are open-ended names,
 * `Submitted`, `LimitsExceeded` or an exception's class, read as labels, and ours also say whether
 * the test passed); `submission` its diff; `instance_cost` and `api_calls` the line's `cost` (0
 * when no price was known) and `turns` (its model calls).
 */
export function toTrajectory(input: TrajectoryInput): Trajectory {
  const { result } = input;
  const messages = input.messages.map((recorded) => toMessage(recorded, input.price));
  messages.push({
    role: "exit",
    content: result.error ?? result.status,
    extra: { exit_status: result.status, submission: input.submission },
  });
  return {
    info: {
      model_stats: { instance_cost: result.cost ?? 0, api_calls: result.turns },
      config: {
        agent: { runId: result.runId, provider: result.provider, api: result.api, thinking: result.thinking },
        agent_type: "harness",
        model: { model_name: result.model },
        model_type: result.api ? `harness/${result.api}` : "harness",
      },
      mini_version: `harness ${input.harnessVersion}`,
      exit_status: result.status,
      submission: input.submission,
      harness: {
        runId: result.runId,
        attempt: result.attempt,
        ...(input.copy ? { copy: input.copy } : {}),
        status: result.status,
        ...(result.error !== undefined ? { error: result.error } : {}),
        testExitCode: result.testExitCode,
        tokens: result.tokens,
        ...(result.cost !== undefined ? { cost: result.cost } : {}),
        durationMs: result.durationMs,
        sessionId: result.sessionId,
        harnessVersion: result.harnessVersion,
      },
    },
    messages,
    trajectory_format: TRAJECTORY_FORMAT,
    instance_id: result.id,
  };
}

/** Seconds since the epoch, as mini-swe-agent's `extra.timestamp` (Python's time.time()). */
function timestampOf(at: string): number {
  const ms = Date.parse(at);
  return Number.isFinite(ms) ? ms / 1000 : 0;
}

/**
 * Our neutral message as an OpenAI chat message: the user's text (with images as `image_url`
 * parts), the assistant's text as `content`, its reasoning as `reasoning_content` (the inspector
 * shows it) and each tool call under `tool_calls` (`function.arguments` the JSON text as the model
 * wrote it), and each tool result as a `tool` message answering its call's id.
 */
function toMessage({ at, message, isCompaction }: RecordedMessage, price: TrajectoryInput["price"]): TrajectoryMessage {
  const timestamp = timestampOf(at);
  switch (message.role) {
    case "user": {
      const hasImages = message.content.some((part) => part.type === "image");
      const content = hasImages
        ? message.content.map((part) =>
            part.type === "text"
              ? { type: "text", text: part.text }
              : { type: "image_url", image_url: { url: `data:${part.mediaType};base64,${part.data}` } },
          )
        : message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
      return { role: "user", content, extra: { ...(isCompaction ? { compaction: true } : {}), timestamp } };
    }
    case "assistant": {
      const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
      const thinking = message.content.flatMap((part) => (part.type === "thinking" ? [part.text] : [])).join("");
      const calls = message.content.flatMap((part) => (part.type === "tool_call" ? [part] : []));
      const cost = message.usage && message.model ? price?.(message.model, message.usage) : undefined;
      return {
        role: "assistant",
        content: text || null,
        ...(thinking ? { reasoning_content: thinking } : {}),
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((call) => ({
                id: call.id,
                type: "function",
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
        extra: {
          actions: calls.map((call) => ({ tool: call.name, ...commandOf(call.arguments), tool_call_id: call.id })),
          ...(cost !== undefined ? { cost } : {}),
          ...(message.usage ? { usage: message.usage } : {}),
          ...(message.model ? { model: message.model } : {}),
          stop_reason: message.stopReason,
          timestamp,
        },
      };
    }
    case "tool":
      return {
        role: "tool",
        tool_call_id: message.toolCallId,
        content: message.content,
        extra: { tool_name: message.toolName, is_error: message.isError, timestamp },
      };
    default:
      return assertNever(message);
  }
}

/** A shell tool's `command` argument, as mini-swe-agent's actions carry it (`{command, tool_call_id}`). */
function commandOf(args: string): { command?: string } {
  try {
    const parsed = JSON.parse(args) as { command?: unknown };
    return typeof parsed?.command === "string" ? { command: parsed.command } : {};
  } catch {
    return {};
  }
}

/**
 * Where an attempt's trajectory goes: `<root>/<run id>/<task>.<attempt>.traj.json`, and
 * `<task>.<attempt>.<copy>.traj.json` for the other runs of a best-of-N attempt (the attempt
 * journal's names), so no run, attempt or copy overwrites another's. `root` is the results file's
 * `<out>.trajectories` for a batch on this machine, a worker's `<workdir>/trajectories`.
 */
export function trajectoryPathOf(root: string, runId: string, id: string, attempt: number, copy?: number): string {
  const name = `${folderNameOf(id)}.${attempt}.${copy && copy > 1 ? `${copy}.` : ""}traj.json`;
  return `${root}/${folderNameOf(runId)}/${name}`;
}

/** The trajectories folder of a results file: `results.jsonl` → `results.trajectories`. */
export function trajectoriesOf(outPath: string): string {
  return `${outPath.replace(/\.jsonl$/, "")}.trajectories`;
}

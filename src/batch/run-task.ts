// One task from start to result: working copy, setup, the agent (a child harness), test.
import { assertNever, type Usage } from "../core/messages.ts";
import type { BatchTask } from "./batch-task.ts";
import { runHarnessChild, type HarnessCommand } from "./harness-child.ts";
import { runShellCommand } from "./shell-command.ts";
import { NO_TOKENS, type TaskResult, type TaskStatus, type TaskTokens } from "./task-result.ts";
import { prepareWorkingCopy } from "./working-copy.ts";

/** Settings for every task of a batch; a task's own `provider`, `model`, `maxTurns` win. */
export interface TaskDefaults {
  provider?: string;
  model?: string;
  baseUrl?: string;
  /** `--api` and `--thinking` as a user types them (`chat`, `high`), passed on to each task's harness. */
  api?: string;
  thinking?: string;
  maxTurns?: number;
}

export interface RunTaskOptions {
  command: HarnessCommand;
  defaults: TaskDefaults;
  /** Where working copies of repositories (and empty folders) are made, one folder per task. */
  workRoot: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  onUsage?(total: Usage): void;
}

/**
 * What became of a run: a result to record; a rate limit the child's own retries could not
 * outlast (the pool waits and runs it again, and records its failed result when it gives up); or an interrupt by the batch (nothing to record,
 * so a resumed batch runs it again).
 */
export type TaskOutcome =
  | { kind: "finished"; result: TaskResult }
  | { kind: "rate_limited"; result: TaskResult }
  | { kind: "interrupted" };

/**
 * How provider errors read once the child gave up retrying: `429 ...` and `529 ...` (the status
 * leads the message), or the servers' own words for a rate limit or overload.
 */
const RATE_LIMIT_ERROR = /^(429|529)\b|rate[ _-]?limit|too many requests|overloaded/i;

export function isRateLimitError(error: string): boolean {
  return RATE_LIMIT_ERROR.test(error);
}

export async function runTask(task: BatchTask, options: RunTaskOptions): Promise<TaskOutcome> {
  const started = Date.now();
  const { signal, env } = options;
  const result = ({ status, ...fields }: Partial<TaskResult> & { status: TaskStatus }): TaskOutcome => ({
    kind: "finished",
    // Key order is the order a person reads a results line in.
    result: {
      id: task.id,
      status,
      answer: "",
      turns: 0,
      tokens: NO_TOKENS,
      ...fields,
      durationMs: Date.now() - started,
      testExitCode: fields.testExitCode ?? null,
      sessionId: fields.sessionId ?? null,
    },
  });

  let cwd: string;
  try {
    cwd = await prepareWorkingCopy(task, options.workRoot, signal);
  } catch (error) {
    if (signal.aborted) return { kind: "interrupted" };
    return result({ status: "error", error: `working copy: ${(error as Error).message}` });
  }
  if (task.setup) {
    const setup = await runShellCommand(task.setup, cwd, env, signal);
    if (signal.aborted) return { kind: "interrupted" };
    if (setup.exitCode !== 0)
      return result({
        status: "error",
        error: `setup ${setup.timedOut ? "timed out" : `exited ${setup.exitCode}`}: ${setup.output}`.trim(),
      });
  }

  const child = await runHarnessChild({
    command: options.command,
    prompt: task.prompt,
    flags: flagsFor(task, options.defaults),
    cwd,
    env,
    signal,
    onUsage: options.onUsage,
  });
  if (signal.aborted) return { kind: "interrupted" };
  const done = child.done;
  if (!done) {
    const how = child.signal ? `was killed by ${child.signal}` : `exited ${child.exitCode} without a result`;
    return result({
      status: "error",
      sessionId: child.sessionId ?? null,
      error: `the harness ${how}${child.stderrTail ? `: ${child.stderrTail}` : ""}`,
    });
  }
  const run = {
    answer: done.answer,
    turns: done.turns,
    tokens: tokensOf(done.usage),
    ...(done.cost !== undefined ? { cost: done.cost } : {}),
    sessionId: child.sessionId ?? null,
    ...(done.error ? { error: done.error } : {}),
  };
  switch (done.reason) {
    case "error": {
      const failed = result({ ...run, status: "failed" });
      return done.error && isRateLimitError(done.error) && failed.kind === "finished"
        ? { kind: "rate_limited", result: failed.result }
        : failed;
    }
    case "aborted":
      return result({ ...run, status: "interrupted" });
    case "stop":
    case "max_turns": {
      if (!task.test) return result({ ...run, status: done.reason === "stop" ? "ok" : "max_turns" });
      const test = await runShellCommand(task.test, cwd, env, signal);
      if (signal.aborted) return { kind: "interrupted" };
      const testFailed =
        test.exitCode !== 0
          ? { error: `test ${test.timedOut ? "timed out" : `exited ${test.exitCode}`}: ${test.output}`.trim() }
          : {};
      const status: TaskStatus = done.reason === "max_turns" ? "max_turns" : test.exitCode === 0 ? "ok" : "failed";
      return result({ ...run, ...testFailed, status, testExitCode: test.exitCode });
    }
    default:
      return assertNever(done.reason);
  }
}

/** CLI flags for the task's child harness. */
function flagsFor(task: BatchTask, defaults: TaskDefaults): string[] {
  const provider = task.provider ?? defaults.provider;
  const model = task.model ?? defaults.model;
  const maxTurns = task.maxTurns ?? defaults.maxTurns;
  return [
    ...(provider ? ["--provider", provider] : []),
    ...(model ? ["--model", model] : []),
    ...(defaults.baseUrl ? ["--base-url", defaults.baseUrl] : []),
    ...(defaults.api ? ["--api", defaults.api] : []),
    ...(defaults.thinking ? ["--thinking", defaults.thinking] : []),
    ...(maxTurns ? ["--max-turns", String(maxTurns)] : []),
  ];
}

/** Cache writes are input the model read; `cached` is what was read back from the cache. */
function tokensOf(usage: Usage): TaskTokens {
  return { input: usage.input + usage.cacheWrite, output: usage.output, cached: usage.cacheRead };
}

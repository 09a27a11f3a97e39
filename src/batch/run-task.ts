// One attempt of a task from start to result: working copy, setup, the agent (a child harness),
// test, diff. Its own limits (`timeout`, `maxCost`) and the batch's `--max-cost` end it cleanly:
// the child is interrupted (its session ends properly) and the result says which limit it was.
import { join } from "node:path";
import { assertNever } from "../core/messages.ts";
import { type AttemptJournal, newAttemptRecord, type SessionSpend, withInFlight } from "./attempt-journal.ts";
import type { RunSettings } from "./batch-run.ts";
import type { BatchTask } from "./batch-task.ts";
import type { RunBudget } from "./cost-budget.ts";
import { environmentVariables } from "./environment/task-environment.ts";
import { gradedTest } from "./grading/graded-test.ts";
import {
  type ChildRun,
  type GroupTracker,
  type HarnessCommand,
  type PriceCall,
  runHarnessChild,
  type Spend,
} from "./harness-child.ts";
import { type CommandSandbox, runShellCommand } from "./shell-command.ts";
import { NO_TOKENS, stampOf, type TaskResult, type TaskStatus, tokensOf } from "./task-result.ts";
import { diffOf, prepareWorkingCopy, type TaskFolderCheck, type WorkingCopy } from "./working-copy.ts";

export interface RunTaskOptions {
  command: HarnessCommand;
  runId: string;
  settings: RunSettings;
  /** Where working copies of repositories (and empty folders) are made. */
  workRoot: string;
  /** The folders a task may name (its cwd, a local repo): the one judgement of workspaces. */
  taskFolder: TaskFolderCheck;
  /** The child harness's environment (its provider key included). */
  env: NodeJS.ProcessEnv;
  /** Where the child's sessions are written ($HARNESS_HOME/sessions). */
  sessionsDir: string;
  /** The sandbox and environment of setup and test in a working copy: the agent's command rules (and a task environment's variables). */
  sandboxFor(cwd: string, environment?: Record<string, string>): CommandSandbox;
  price?: PriceCall;
  /** The user's name of a wire API the child reports by its kind (`openai` is `chat`). */
  nameApi?(kind: string): string;
  groups?: GroupTracker;
  /** The batch's --max-cost, shared by its tasks (on every worker, in queue mode). */
  budget?: RunBudget;
  signal: AbortSignal;
  onSpend?(spent: Spend): void;
  /** Where the attempt is written down while it runs (attempt-journal.ts), so a SIGKILL loses nothing. */
  journal?: AttemptJournal;
  /** Who runs it (a worker's name), for that record. */
  by?: string;
  /** Which run of a best-of-N attempt this is (2, 3, ...), for that record. */
  copy?: number;
  /** Writes the attempt's trajectory (trajectory.ts) once its result is known; never throws. */
  saveTrajectory?(result: TaskResult, copy: number | undefined): void;
  /** Reads the harness's session file: the call in flight of a run stopped mid-call. */
  sessionSpend?: SessionSpend;
}

/**
 * What became of a run: a result to record; a rate limit the child's own retries could not
 * outlast (the pool waits and runs it again, and records its failed result when it gives up); or
 * an interrupt by the batch (nothing to record, so a resumed batch runs it again).
 */
export type TaskOutcome =
  | { kind: "finished"; result: TaskResult }
  | { kind: "rate_limited"; result: TaskResult }
  | { kind: "interrupted" };

/** Why the batch itself ended a task before it finished. */
type Stop = { status: "timeout" | "max_cost" | "capped" | "error"; error: string };

/**
 * How provider errors read once the child gave up retrying: `429 ...` and `529 ...` (the status
 * leads the message), or the servers' own words for a rate limit or overload.
 */
const RATE_LIMIT_ERROR = /^(429|529)\b|rate[ _-]?limit|too many requests|overloaded/i;

export function isRateLimitError(error: string): boolean {
  return RATE_LIMIT_ERROR.test(error);
}

let budgetKeys = 0;

export async function runTask(task: BatchTask, attempt: number, options: RunTaskOptions): Promise<TaskOutcome> {
  const started = Date.now();
  const stopper = new AbortController();
  let stop: Stop | undefined;
  const stopWith = (reason: Stop) => {
    stop ??= reason;
    stopper.abort();
  };
  const timer = task.timeout
    ? setTimeout(() => stopWith({ status: "timeout", error: `timeout: ran ${task.timeout} s` }), task.timeout * 1000)
    : undefined;
  const onBudget = () =>
    stopWith({ status: "capped", error: `the batch's --max-cost $${options.budget?.limit} was reached` });
  if (options.budget?.signal.aborted) onBudget();
  options.budget?.signal.addEventListener("abort", onBudget, { once: true });
  // Unique per call: a best-of-N task's attempts start in the same millisecond.
  const budgetKey = `${task.id}#${attempt}#${started}#${++budgetKeys}`;
  let spentCost = 0;
  try {
    const signal = AbortSignal.any([options.signal, stopper.signal]);
    const outcome = await attemptTask(task, attempt, options, signal, {
      started,
      stopped: () => stop,
      onSpend: (spent) => {
        if (spent.cost === undefined && (task.maxCost !== undefined || options.budget))
          stopWith({
            status: "error",
            error: "maxCost and --max-cost need the model's price: set its prices in config.json",
          });
        spentCost = spent.cost ?? 0;
        if (task.maxCost !== undefined && spentCost >= task.maxCost)
          stopWith({ status: "max_cost", error: `maxCost: spent $${spentCost} of $${task.maxCost}` });
        options.budget?.update(budgetKey, spentCost);
        options.onSpend?.(spent);
      },
    });
    if (outcome.kind !== "interrupted") spentCost = outcome.result.cost ?? spentCost;
    return outcome;
  } finally {
    clearTimeout(timer);
    options.budget?.signal.removeEventListener("abort", onBudget);
    options.budget?.settle(budgetKey, spentCost);
  }
}

interface AttemptState {
  started: number;
  /** Set once the batch ended the attempt itself (a limit). */
  stopped(): Stop | undefined;
  onSpend(spent: Spend): void;
}

async function attemptTask(
  task: BatchTask,
  attempt: number,
  options: RunTaskOptions,
  signal: AbortSignal,
  state: AttemptState,
): Promise<TaskOutcome> {
  let copy: WorkingCopy | undefined;
  let child: ChildRun | undefined;
  const interruptedOr = (outcome: () => Promise<TaskOutcome> | TaskOutcome) =>
    options.signal.aborted ? { kind: "interrupted" as const } : outcome();
  const result = async ({ status, ...fields }: Partial<TaskResult> & { status: TaskStatus }): Promise<TaskOutcome> => {
    // A limit the batch enforced names the end of a task that did not succeed anyway.
    const stop = status === "ok" ? undefined : state.stopped();
    // Key order is the order a person reads a results line in.
    const line: TaskResult = {
      id: task.id,
      status: stop?.status ?? status,
      ...stampOf(options.runId, options.settings.thinking),
      provider: child?.provider ?? null,
      model: child?.model ?? null,
      api: child?.api ? (options.nameApi?.(child.api) ?? child.api) : null,
      attempt,
      answer: "",
      turns: 0,
      tokens: NO_TOKENS,
      ...fields,
      ...(stop ? { error: stop.error } : {}),
      durationMs: Date.now() - state.started,
      finishedAt: new Date().toISOString(),
      testExitCode: fields.testExitCode ?? null,
      sessionId: child?.sessionId ?? null,
      sessionPath: child?.sessionId ? join(options.sessionsDir, `${child.sessionId}.jsonl`) : null,
      workdir: copy?.dir ?? null,
      diff: copy ? await diffOf(copy, options.signal) : null,
    };
    options.saveTrajectory?.(line, options.copy);
    return { kind: "finished", result: line };
  };

  try {
    const where = { workRoot: options.workRoot, runId: options.runId, taskFolder: options.taskFolder };
    copy = await prepareWorkingCopy(task, where, signal);
  } catch (error) {
    return interruptedOr(() => result({ status: "error", error: `working copy: ${(error as Error).message}` }));
  }
  // Written down before the harness starts: its working copy is how its session is found later.
  const record = {
    ...newAttemptRecord(task.id, attempt, options.sessionsDir, options.by),
    ...(options.copy ? { copy: options.copy } : {}),
    workdir: copy.dir,
  };
  const note = (change: Partial<typeof record>) =>
    options.journal?.write(Object.assign(record, change, { updatedAt: new Date().toISOString() }));
  await note({});
  let environment: Record<string, string> = {};
  let sandbox: CommandSandbox;
  try {
    if (task.environment) environment = await environmentVariables(task.environment, options.workRoot, signal);
    sandbox = options.sandboxFor(copy.dir, environment);
  } catch (error) {
    return interruptedOr(() => result({ status: "error", error: `environment: ${(error as Error).message}` }));
  }
  if (task.setup) {
    const setup = await runShellCommand(task.setup, copy.dir, sandbox, signal, { groups: options.groups });
    if (setup.exitCode !== 0 || signal.aborted)
      return interruptedOr(() =>
        result({
          status: "error",
          error: `setup ${setup.timedOut ? "timed out" : `exited ${setup.exitCode}`}: ${setup.output}`.trim(),
        }),
      );
  }

  child = await runHarnessChild({
    command: options.command,
    prompt: task.prompt,
    flags: flagsFor(task, options.settings),
    cwd: copy.dir,
    env: { ...options.env, ...environment },
    signal,
    price: options.price,
    groups: options.groups,
    onStart: (started) => void note(started),
    onSpend: (spent) => {
      void note({ calls: record.calls + 1, spent });
      state.onSpend(spent);
    },
  });
  if (options.signal.aborted) return { kind: "interrupted" };
  const done = child.done;
  // Stopped (a limit, a kill) with a model call under way: that call's spend, from the session file.
  const inFlight =
    (!done || done.reason === "aborted") && child.callOpen ? options.sessionSpend?.(record, true)?.inFlight : undefined;
  if (!done) return result(withInFlight(withoutResult(child), inFlight));
  const run = {
    answer: done.answer,
    turns: done.turns,
    tokens: tokensOf(done.usage),
    ...(done.cost !== undefined ? { cost: done.cost } : {}),
    ...(done.error ? { error: done.error } : {}),
    ...(done.structured_output !== undefined ? { structured_output: done.structured_output } : {}),
    ...(child.answeredBy ? { answeredBy: child.answeredBy } : {}),
  };
  switch (done.reason) {
    case "error": {
      const failed = await result({ ...run, status: "failed" });
      return done.error && isRateLimitError(done.error) && failed.kind === "finished"
        ? { kind: "rate_limited", result: failed.result }
        : failed;
    }
    case "aborted":
      return result(withInFlight({ ...run, status: "interrupted" as const }, inFlight));
    case "stop":
    case "max_turns": {
      if (!task.test || signal.aborted) return result({ ...run, status: done.reason === "stop" ? "ok" : "max_turns" });
      const test = task.grading
        ? await gradedTest(task, copy.dir, sandbox, signal, options.groups)
        : await runShellCommand(task.test, copy.dir, sandbox, signal, { groups: options.groups });
      if (options.signal.aborted) return { kind: "interrupted" };
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

/**
 * A child that ended without its final event. Killed by a signal, or gone after it had called
 * the model: `crashed` (out of memory, killed from outside), with what it had spent, and tried
 * again by the next run. Else it never got going (a bad flag, no key): `error`.
 */
function withoutResult(child: ChildRun): Partial<TaskResult> & { status: TaskStatus } {
  const how = child.signal ? `was killed by ${child.signal}` : `exited ${child.exitCode} without a result`;
  const hasSpent = child.spent.usage.input + child.spent.usage.output + child.spent.usage.cacheRead > 0;
  return {
    status: child.signal || hasSpent ? "crashed" : "error",
    turns: child.calls,
    tokens: tokensOf(child.spent.usage),
    ...(child.spent.cost !== undefined ? { cost: child.spent.cost } : {}),
    error: `the harness ${how}${child.stderrTail ? `: ${child.stderrTail}` : ""}`,
  };
}

/** CLI flags for the task's child harness. */
function flagsFor(task: BatchTask, settings: RunSettings): string[] {
  const provider = task.provider ?? settings.provider;
  const model = task.model ?? settings.model;
  const maxTurns = task.maxTurns ?? settings.maxTurns;
  return [
    ...(provider ? ["--provider", provider] : []),
    ...(model ? ["--model", model] : []),
    ...(settings.baseUrl ? ["--base-url", settings.baseUrl] : []),
    ...(settings.api ? ["--api", settings.api] : []),
    ...(settings.thinking ? ["--thinking", settings.thinking] : []),
    ...(maxTurns ? ["--max-turns", String(maxTurns)] : []),
    ...(task.outputSchema ? ["--json-schema", JSON.stringify(task.outputSchema)] : []),
  ];
}

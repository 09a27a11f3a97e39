// What `harness batch` and `harness worker` give the batch layer from the rest of harness: the
// sandbox and environment of a task's setup and test (the agent's own command rules), the prices
// of its model calls, where its sessions go, and which folders a task may name (the one
// judgement of workspaces, wiring/home-workspace.ts).
import { join } from "node:path";
import type { RunSettings } from "../../batch/batch-run.ts";
import { type BatchTask, localRepoPath, TaskFileError } from "../../batch/batch-task.ts";
import { currentHarnessCommand, type GroupTracker, type PriceCall } from "../../batch/harness-child.ts";
import type { RunTaskOptions } from "../../batch/run-task.ts";
import type { CommandSandbox } from "../../batch/shell-command.ts";
import { setupPermissions } from "../../permissions/setup-permissions.ts";
import { costOf, lookupPrices } from "../../providers/pricing.ts";
import { type ApiKind, wireApiName } from "../../providers/wire-apis.ts";
import { AnswerSchemaError, compileAnswerSchema } from "../../tools/answer-schema.ts";
import type { HarnessConfig } from "../../wiring/config-file.ts";
import { stateDir } from "../../wiring/defaults.ts";
import { taskFolder } from "../../wiring/home-workspace.ts";
import type { Flags, PROVIDER_FLAGS } from "../cli-args.ts";
import { sessionSpendFor } from "./batch-sessions.ts";
import { trajectorySaverFor } from "./batch-trajectories.ts";

/**
 * Setup and test of a task in `cwd`: bwrap (or sandbox-exec) with the policy the agent's bash
 * tool gets there, and its environment (the provider keys and other credentials removed). Where
 * no sandbox works they still get that environment; the child harness says the sandbox is missing.
 */
export function commandSandboxFor(
  env: NodeJS.ProcessEnv,
): (cwd: string, environment?: Record<string, string>) => CommandSandbox {
  return (cwd, environment) => {
    const where = { cwd, env: { ...env, ...environment }, harnessHome: stateDir(env) };
    const setup = setupPermissions({ approve: "all" }, where);
    return { env: setup.env, ...(setup.wrapCommand ? { wrap: setup.wrapCommand } : {}) };
  };
}

/**
 * Prices a model call as the child harness will: config.json's prices for the model (under the
 * run's provider, else any provider that lists it), the provider's, else the built-in table.
 */
export function priceCallFor(config: HarnessConfig, provider: string | undefined): PriceCall {
  return (model, usage) => {
    const providers = Object.entries(config.providers ?? {});
    const own = provider ? config.providers?.[provider] : undefined;
    const prices =
      own?.models?.[model]?.prices ??
      providers.find(([, entry]) => entry.models?.[model]?.prices)?.[1].models?.[model]?.prices ??
      own?.prices ??
      lookupPrices(model);
    return prices ? costOf(usage, prices) : undefined;
  };
}

/** The child harness's environment: this one's, with undo snapshots off unless asked for. */
function childEnvFor(env: NodeJS.ProcessEnv, withSnapshots: boolean): NodeJS.ProcessEnv {
  return withSnapshots ? env : { ...env, HARNESS_SNAPSHOTS: "off" };
}

function sessionsDirOf(env: NodeJS.ProcessEnv): string {
  return join(stateDir(env), "sessions");
}

/** The run settings the provider flags of `harness batch` or `harness worker` give. */
export function settingsFromFlags(flags: Flags<(typeof PROVIDER_FLAGS)[number]>): RunSettings {
  return {
    provider: flags.provider,
    model: flags.model,
    baseUrl: flags["base-url"],
    api: flags.api && wireApiName(flags.api),
    thinking: flags.thinking === undefined ? undefined : String(flags.thinking),
    maxTurns: flags["max-turns"],
  };
}

/** A wire API kind as users name it (`openai` is `chat`), for results. */
export function nameApi(kind: string): string {
  return wireApiName(kind as ApiKind) ?? kind;
}

/** How this process runs a task (for `harness batch` and `harness worker` alike). */
export function taskRunOptions(where: {
  env: NodeJS.ProcessEnv;
  config: HarnessConfig;
  provider: string | undefined;
  workRoot: string;
  /** Where each attempt's trajectory goes (batch-trajectories.ts). */
  trajectories: string;
  withSnapshots: boolean;
  groups: GroupTracker;
}): Omit<RunTaskOptions, "runId" | "settings" | "signal" | "onSpend" | "budget"> {
  const { env, config } = where;
  const price = priceCallFor(config, where.provider ?? env.HARNESS_PROVIDER ?? config.provider);
  return {
    command: currentHarnessCommand(),
    workRoot: where.workRoot,
    taskFolder: (folder) => taskFolder(folder, env),
    env: childEnvFor(env, where.withSnapshots),
    sessionsDir: sessionsDirOf(env),
    sandboxFor: commandSandboxFor(env),
    price,
    sessionSpend: sessionSpendFor(price),
    nameApi,
    groups: where.groups,
    saveTrajectory: trajectorySaverFor(where.trajectories, env, price),
  };
}

/**
 * Why the batch may not run, or undefined: a task's cwd or local repo, or the working copies'
 * folder (a local run's), where no task may run (wiring/home-workspace.ts). Checked before
 * anything runs, so a tasks file from elsewhere cannot make a setup command run in ~/.ssh or
 * $HARNESS_HOME. A queued batch is checked here too; each worker checks again against its own.
 */
export function refusedFolder(tasksPath: string, tasks: BatchTask[], workRoot: string | undefined): string | undefined {
  const checked = workRoot === undefined ? undefined : taskFolder(workRoot, process.env);
  if (checked && "refused" in checked) return `--workdir ${checked.refused}: no task may run there`;
  for (const task of tasks)
    for (const [field, folder] of [
      ["cwd", task.cwd],
      ["repo", task.repo === undefined ? undefined : localRepoPath(task.repo)],
    ] as const) {
      if (folder === undefined) continue;
      const verdict = taskFolder(folder, process.env);
      if ("refused" in verdict)
        return `${tasksPath}: task "${task.id}": ${field} ${verdict.refused}: no task runs there`;
    }
  return undefined;
}

/** Every task's `outputSchema` is checked as `--json-schema` is, before anything runs: a bad one is the file's mistake. */
export async function checkOutputSchemas(tasksPath: string, tasks: readonly BatchTask[]): Promise<void> {
  for (const task of tasks) {
    if (!task.outputSchema) continue;
    try {
      await compileAnswerSchema(task.outputSchema);
    } catch (error) {
      if (!(error instanceof AnswerSchemaError)) throw error;
      throw new TaskFileError(`${tasksPath}: task "${task.id}": outputSchema: ${error.message}`);
    }
  }
}

// `harness worker --queue redis://host:port/name`: runs the tasks a `harness batch --queue` put
// on the queue, on this machine, until stopped (Ctrl-C or SIGTERM: the running tasks go back
// to the queue at once for other workers).

import { join, resolve } from "node:path";
import { allowedRootfsFolders } from "../../batch/environment/environment-policy.ts";
import { rateLimitBackoffFrom } from "../../batch/local-pool.ts";
import { type QueueTarget, QueueUrlError } from "../../batch/queue/queue-target.ts";
import { Reaper } from "../../batch/reaper.ts";
import { showControlChars } from "../../shared/control-chars.ts";
import { loadConfigFile } from "../../wiring/config-file.ts";
import { taskFolder } from "../../wiring/home-workspace.ts";
import { PROVIDER_FLAGS, parseFlags } from "../cli-args.ts";
import { sessionSpendFor } from "./batch-sessions.ts";
import { settingsFromFlags, taskRunOptions } from "./batch-wiring.ts";
import { QUEUE_SECRETS_HELP, queueTargetOf } from "./queue-flags.ts";

/** Tasks at once when --concurrency is not given. */
const DEFAULT_CONCURRENCY = 4;

const USAGE = `Usage: harness worker --queue redis://[user@]host:port/name [options]
Takes tasks queued by \`harness batch --queue\` and runs them here, as the batch would.
${QUEUE_SECRETS_HELP}  --concurrency <n>   tasks at once (default ${DEFAULT_CONCURRENCY})
  --workdir <dir>     where working copies are made (default harness-work/<queue name> in the
                      folder the worker is started in)
  --provider, --model, --base-url, --api, --thinking, --max-turns
                      this worker's own settings: they win over what a batch asks
  --allow-models <list>
                      models a batch may choose (comma-separated, * wildcards, provider/model
                      for another provider); without it, only this worker's --model runs
  --allow-dir <dir>   a folder a task's cwd or local repo may be in (repeatable); without it,
                      tasks that name a folder of this machine are refused
  --allow-repo <url>  a repository URL tasks may clone (repeatable, * wildcards:
                      'https://github.com/*'); without it, tasks that name a URL are refused
  --allow-rootfs <dir>
                      a folder a task's environment.rootfs may be in (repeatable; by real path,
                      apart from --workdir and --allow-dir); without it, such tasks are refused
  --allow-images <list>
                      image references a task's environment.image may name (comma-separated,
                      * wildcards: 'localhost/*'); without it, tasks naming an image are refused
  --snapshots         keep undo snapshots of the tasks' working copies (off by default)
Anyone who can write to this Redis can make this worker run setup and test commands (in the
sandbox, without keys) and spend its keys on its allowed models: give Redis a password
(requirepass; HARNESS_QUEUE_PASSWORD) and TLS (rediss://) on any shared network.
Tasks name their cwd or repo as paths on the batch's machine: workers need the same paths
(a shared file system, inside an --allow-dir) or repository URLs on --allow-repo. No task runs
in a credential folder, $HARNESS_HOME, a hidden folder of home, or a folder holding home.
Sessions go to this machine's $HARNESS_HOME. Stop with Ctrl-C or SIGTERM: running tasks go back
to the queue.
`;

/** The flags `harness worker` takes (test/cli/cli-help-flags.test.ts: each one is in its help). */
export const WORKER_FLAGS = [
  "queue",
  "queue-password-file",
  "queue-key-file",
  "concurrency",
  "workdir",
  "allow-models",
  "allow-dir",
  "allow-repo",
  "allow-rootfs",
  "allow-images",
  "snapshots",
  ...PROVIDER_FLAGS,
  "help",
] as const;

export async function run(argv: string[]): Promise<number> {
  let target: QueueTarget;
  let flags;
  try {
    const parsed = parseFlags(argv, WORKER_FLAGS, { positionals: true });
    flags = parsed.flags;
    if (flags.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    if (parsed.positionals.length > 0) throw new Error(`unexpected argument "${parsed.positionals[0]}"`);
    if (!flags.queue) throw new Error("--queue redis://host:port/name is required");
    target = queueTargetOf(flags) as QueueTarget; // --queue is given
  } catch (error) {
    process.stderr.write(`harness: ${showControlChars((error as Error).message)}\n${USAGE}`);
    return 2;
  }
  let config;
  try {
    config = loadConfigFile(process.env);
  } catch (error) {
    process.stderr.write(`harness: ${showControlChars((error as Error).message)}\n`);
    return 2;
  }
  const settings = settingsFromFlags(flags);
  const allowModels = listOf(flags["allow-models"]);
  // The worker's own folders are judged as a task's would be: a job may use each of them.
  const workRoot = resolve(flags.workdir ?? join("harness-work", target.name));
  const allowDirs: string[] = [];
  for (const [flag, dir] of [
    ["--workdir", workRoot] as const,
    ...(flags["allow-dir"] ?? []).map((dir) => ["--allow-dir", dir] as const),
  ]) {
    const checked = taskFolder(dir, process.env);
    if ("refused" in checked) {
      process.stderr.write(`harness: ${flag} ${checked.refused}: no task may run there\n`);
      return 2;
    }
    if (flag === "--allow-dir") allowDirs.push(checked.folder);
  }
  const judge = (dir: string) => taskFolder(dir, process.env);
  const rootfs = allowedRootfsFolders(flags["allow-rootfs"] ?? [], [workRoot, ...allowDirs], judge);
  if ("refused" in rootfs) {
    process.stderr.write(`harness: ${rootfs.refused}\n`);
    return 2;
  }
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write("worker: stopping; running tasks go back to the queue\n");
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const reaper = new Reaper();
  const { runQueueWorker } = await import("../../batch/queue/queue-worker.ts");
  const run = taskRunOptions({
    env: process.env,
    config,
    provider: settings.provider,
    workRoot,
    trajectories: join(workRoot, "trajectories"),
    withSnapshots: Boolean(flags.snapshots),
    groups: reaper,
  });
  try {
    await runQueueWorker({
      target,
      concurrency: flags.concurrency ?? DEFAULT_CONCURRENCY,
      run,
      sessionSpend: sessionSpendFor(run.price),
      policy: {
        settings,
        allowModels,
        allowDirs,
        allowRepos: flags["allow-repo"] ?? [],
        allowRootfs: rootfs.folders,
        allowImages: listOf(flags["allow-images"]),
      },
      rateLimitBackoffMs: rateLimitBackoffFrom(process.env),
      log: (line) => process.stderr.write(`worker: ${showControlChars(line)}\n`),
      signal: controller.signal,
    });
  } catch (error) {
    if (!(error instanceof QueueUrlError)) throw error;
    process.stderr.write(`harness: ${showControlChars(error.message)}\n`);
    return 1;
  } finally {
    reaper.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  return 0;
}

/** A comma-separated flag's patterns. */
function listOf(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((pattern) => pattern.trim())
    .filter(Boolean);
}

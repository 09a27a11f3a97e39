// `harness worker --queue redis://host:port/name`: runs the tasks a `harness batch --queue` put
// on the queue, on this machine, until stopped (Ctrl-C or SIGTERM: the running tasks go back
// to the queue at once for other workers).
import { join, resolve } from "node:path";
import { parseFlags } from "../cli-args.ts";
import { stateDir } from "../config.ts";
import { currentHarnessCommand } from "../batch/harness-child.ts";
import { rateLimitBackoffFrom } from "../batch/local-pool.ts";
import { parseQueueUrl, QueueUrlError, type QueueTarget } from "../batch/queue-target.ts";

/** Tasks at once when --concurrency is not given. */
const DEFAULT_CONCURRENCY = 4;

const USAGE = `Usage: harness worker --queue redis://host:port/name [--concurrency n] [--workdir dir]
Takes tasks queued by \`harness batch --queue\` and runs them here, as the batch would.
  --concurrency <n>   tasks at once (default ${DEFAULT_CONCURRENCY})
  --workdir <dir>     where working copies are made (default $HARNESS_HOME/batch-work/<queue name>)
Tasks name their cwd or repo as paths on the batch's machine: workers need the same paths
(a shared file system) or repository URLs they can clone. Sessions go to this machine's
$HARNESS_HOME. Stop with Ctrl-C or SIGTERM: running tasks go back to the queue.
`;

export async function run(argv: string[]): Promise<number> {
  let target: QueueTarget;
  let concurrency: number;
  let workdir: string | undefined;
  try {
    const { flags: values, positionals } = parseFlags(argv, ["queue", "concurrency", "workdir", "help"], {
      positionals: true,
    });
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    if (positionals.length > 0) throw new Error(`unexpected argument "${positionals[0]}"`);
    if (!values.queue) throw new Error("--queue redis://host:port/name is required");
    target = parseQueueUrl(values.queue);
    concurrency = values.concurrency ?? DEFAULT_CONCURRENCY;
    workdir = values.workdir;
  } catch (error) {
    process.stderr.write(`harness: ${(error as Error).message}\n${USAGE}`);
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
  const { runQueueWorker } = await import("../batch/queue-worker.ts");
  try {
    await runQueueWorker({
      target,
      concurrency,
      command: currentHarnessCommand(),
      workRoot: resolve(workdir ?? join(stateDir(process.env), "batch-work", target.name)),
      env: process.env,
      rateLimitBackoffMs: rateLimitBackoffFrom(process.env),
      log: (line) => process.stderr.write(`worker: ${line}\n`),
      signal: controller.signal,
    });
  } catch (error) {
    if (!(error instanceof QueueUrlError)) throw error;
    process.stderr.write(`harness: ${error.message}\n`);
    return 1;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  return 0;
}

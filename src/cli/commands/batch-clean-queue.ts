// `harness batch clean --queue <url> [--dry-run]`: removes from Redis the finished runs' jobs and
// keys (which runs count as finished, and why: src/batch/queue/queue-runs.ts), and says which
// runs it keeps and why.
import { cleanRun, planClean } from "../../batch/queue/queue-runs.ts";
import { loadBullmq, type QueueTarget, QueueUrlError, waitForRedis } from "../../batch/queue/queue-target.ts";
import { countOf } from "../../shared/helpers.ts";

export async function cleanQueue(target: QueueTarget, isDry: boolean, say: (line: string) => void): Promise<number> {
  const { Queue } = await loadBullmq();
  const queue = new Queue(target.name, { connection: target.connection });
  let lastError = "";
  queue.on("error", (error) => (lastError = error.message));
  try {
    await waitForRedis(queue.waitUntilReady(), target, () => lastError);
    const plans = await planClean(queue, target.key);
    let runs = 0;
    let keys = 0;
    let bytes = 0;
    for (const plan of plans) {
      if (plan.kept) {
        say(`kept run ${plan.runId}: ${plan.kept}`);
        continue;
      }
      const what = `${countOf(plan.jobIds.length, "job")}, ${countOf(plan.keys.length, "key")}, ${plan.bytes} bytes`;
      if (isDry) {
        say(`would remove run ${plan.runId} (${what})`);
      } else {
        const done = await cleanRun(queue, plan);
        if (done.stopped) {
          say(`kept run ${plan.runId}: ${done.stopped} (${countOf(done.removed, "key")} of it removed before)`);
          keys += done.removed;
          continue;
        }
        say(`removed run ${plan.runId} (${what})`);
      }
      runs++;
      keys += plan.keys.length;
      bytes += plan.bytes;
    }
    const total = `${countOf(runs, "finished run")} (${countOf(keys, "key")}, ${bytes} bytes)`;
    say(
      runs === 0
        ? `nothing to clean on ${target.display}`
        : isDry
          ? `would remove ${total}; nothing was removed (--dry-run)`
          : `removed ${total} from ${target.display}`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof QueueUrlError)) throw error;
    process.stderr.write(`harness: ${error.message}\n`);
    return 1;
  } finally {
    await queue.close();
  }
}

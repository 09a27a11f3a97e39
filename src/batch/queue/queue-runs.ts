// Which runs on a queue are finished, and cleaning them out of Redis (`harness batch clean
// --queue`). A batch keeps its jobs once complete (`removeOnComplete: false`: a batch killed
// before collecting a result collects it when re-run), so nothing leaves Redis by itself but the
// ledger's keys (7 days). How a run is known (*decisions*):
// - live: while its batch runs, it refreshes `harness-live:<run>` every LIVE_REFRESH_MS, with a
//   short time to live; a batch killed stops refreshing it and it lapses in LIVE_TTL_S.
// - finished: a batch that recorded every task's final result writes `harness-finished:<run>`,
//   signed with the queue's key over the run's id (queue-signature.ts, kind `run`), and a batch
//   that starts (resumes) the run deletes it first. Only a run with a marker that verifies and no
//   live key is cleaned; every other run is kept (an interrupted run's completed jobs are results
//   its re-run still collects).
// - its keys: the BullMQ jobs whose *signed* data names the run (a job id is `<run>.<task>.<n>`,
//   but a run id may hold dots, so the id alone does not tell `a`'s jobs from `a.b`'s), each
//   job's `harness-done:` and `harness-tries:` keys, and the run's `harness-spend:`. A job of the
//   run in any state but completed or failed (a worker still on it) keeps the whole run.
// A stranger who can write to the Redis can delete keys without us; what a planted key must not
// do is make clean remove what it names: a marker is taken only if it verifies for the run its
// key names, and removal goes by the signed jobs alone.
import type { Job, Queue } from "bullmq";
import { sign, verify } from "./queue-signature.ts";

/** How often a running batch refreshes its live key (ms), and how long the key outlives the last refresh (s). */
export const LIVE_REFRESH_MS = 3000;
const LIVE_TTL_S = 15;
/** A run id as a job's data holds it (queue-job.ts). */
const RUN_ID = /^[A-Za-z0-9._-]{1,100}$/;
/** Keys looked at per SCAN step. */
const SCAN_COUNT = 1000;

type RedisClient = Awaited<Queue["backend"]["client"]>;

// The keys to delete or measure go in ARGV (a script's KEYS count is fixed when it is defined);
// a queue is one Redis, not a cluster, where that would not do.
/**
 * Deletes ARGV[3..] and, when ARGV[2] is "all", the marker (KEYS[2]), only while the run has no
 * live key (KEYS[1]) and its marker is still ARGV[1]; -1 otherwise.
 */
const DELETE_IF_FINISHED = `
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('GET', KEYS[2]) ~= ARGV[1] then return -1 end
local n = 0
for i = 3, #ARGV do n = n + redis.call('DEL', ARGV[i]) end
if ARGV[2] == 'all' then n = n + redis.call('DEL', KEYS[2]) end
return n`;
/** Bytes Redis holds for the keys ARGV names (MEMORY USAGE of each, 0 for one gone). */
const MEMORY_OF = `
local total = 0
for i = 1, #ARGV do total = total + (redis.call('MEMORY', 'USAGE', ARGV[i]) or 0) end
return total`;

const withCommands = new WeakSet<object>();

async function clientOf(queue: Queue): Promise<RedisClient> {
  const client = await queue.backend.client;
  if (!withCommands.has(client)) {
    client.defineCommand("harnessDeleteIfFinished", { numberOfKeys: 2, lua: DELETE_IF_FINISHED });
    client.defineCommand("harnessMemoryOf", { numberOfKeys: 0, lua: MEMORY_OF });
    withCommands.add(client);
  }
  return client;
}

const liveKey = (queue: Queue, runId: string) => queue.toKey(`harness-live:${runId}`);
const finishedKey = (queue: Queue, runId: string) => queue.toKey(`harness-finished:${runId}`);

/** The batch works on the run: its live key (re)set, and any finished marker of an earlier batch of it gone. */
export async function markRunLive(queue: Queue, runId: string, isStart: boolean): Promise<void> {
  const client = await clientOf(queue);
  await client.set(liveKey(queue, runId), String(process.pid), { EX: LIVE_TTL_S });
  if (isStart) await client.del(finishedKey(queue, runId));
}

/** The batch ends: finished (every result recorded: the signed marker), or not (only the live key goes). */
export async function markRunEnded(queue: Queue, key: Buffer, runId: string, isFinished: boolean): Promise<void> {
  const client = await clientOf(queue);
  if (isFinished) {
    const marker = sign(key, "run", runId, { runId, finishedAt: new Date().toISOString() });
    await client.set(finishedKey(queue, runId), JSON.stringify(marker));
  }
  await client.del(liveKey(queue, runId));
}

/** A run found on the queue: what would go, or why it stays. */
interface RunPlan {
  runId: string;
  /** Why it is kept; undefined: it is cleaned. */
  kept?: string;
  jobIds: string[];
  keys: string[];
  bytes: number;
  /** The marker's value, checked again as the keys go. */
  marker?: string;
}

/** Every key of the queue (one SCAN pass), without the queue's prefix. */
async function queueKeys(client: RedisClient, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await client.scan(cursor, { MATCH: `${prefix}*`, COUNT: SCAN_COUNT });
    cursor = next;
    keys.push(...batch.map((key) => key.slice(prefix.length)));
  } while (cursor !== "0");
  return [...new Set(keys)];
}

/** The runs with a finished marker or a live key, each judged (see the top of this file). */
export async function planClean(queue: Queue, key: Buffer): Promise<RunPlan[]> {
  const client = await clientOf(queue);
  const prefix = queue.toKey("");
  const keys = await queueKeys(client, prefix);
  const present = new Set(keys);
  const runIds = new Set(keys.flatMap((name) => /^harness-(?:finished|live):(.*)$/.exec(name)?.[1] ?? []));
  const plans: RunPlan[] = [];
  for (const runId of [...runIds].sort()) {
    const plan: RunPlan = { runId, jobIds: [], keys: [], bytes: 0 };
    plans.push(plan);
    if (!RUN_ID.test(runId)) {
      plan.kept = "not a run id a batch makes (a stranger's key?)";
      continue;
    }
    if ((await client.get(liveKey(queue, runId))) !== null) {
      plan.kept = "its batch is running (its harness-live key is fresh)";
      continue;
    }
    const marker = (await client.get(finishedKey(queue, runId))) ?? undefined;
    const why = whyMarkerRefused(key, runId, marker);
    if (why !== undefined) {
      plan.kept = why;
      continue;
    }
    plan.marker = marker;
    const ofJob = new Map<string, string[]>();
    for (const name of keys) {
      const jobId = name.split(":")[0];
      if (jobId.startsWith(`${runId}.`)) ofJob.set(jobId, [...(ofJob.get(jobId) ?? []), name]);
    }
    for (const [jobId, names] of [...ofJob].sort()) {
      const job = await queue.getJob(jobId);
      if (!job || !isJobOfRun(key, job, runId)) continue;
      const state = await queue.getJobState(jobId);
      if (state !== "completed" && state !== "failed") {
        plan.kept = `its job ${jobId} is ${state} (a worker may still be on it)`;
        break;
      }
      plan.jobIds.push(jobId);
      plan.keys.push(...names, ...[`harness-done:${jobId}`, `harness-tries:${jobId}`].filter((k) => present.has(k)));
    }
    if (plan.kept) {
      plan.jobIds = [];
      plan.keys = [];
      continue;
    }
    plan.keys.push(...[`harness-spend:${runId}`, `harness-finished:${runId}`].filter((k) => present.has(k)));
    plan.bytes = Number(
      await client.runCommand(
        "harnessMemoryOf",
        plan.keys.map((name) => prefix + name),
      ),
    );
  }
  return plans;
}

function whyMarkerRefused(key: Buffer, runId: string, marker: string | undefined): string | undefined {
  if (marker === undefined) return "not finished: its batch ended before recording every result (re-run it)";
  let value: unknown;
  try {
    value = JSON.parse(marker);
  } catch {
    return "its finished marker is not JSON (a stranger's key?)";
  }
  const checked = verify(key, "run", runId, value);
  if ("refused" in checked) return `its finished marker does not count: ${checked.refused}`;
  if (checked.value.runId !== runId) return "its finished marker names another run";
  return undefined;
}

function isJobOfRun(key: Buffer, job: Job, runId: string): boolean {
  const checked = verify(key, "job", job.id ?? "", job.data);
  return "value" in checked && checked.value.runId === runId;
}

/**
 * Removes a planned run: its jobs (BullMQ's own removal: out of every list, with their logs; it
 * refuses a locked job), then its other keys, the marker last, while it is still finished (a
 * batch resuming the run since the plan stops it). Returns the keys removed, or why it stopped.
 */
export async function cleanRun(queue: Queue, plan: RunPlan): Promise<{ removed: number; stopped?: string }> {
  const client = await clientOf(queue);
  const prefix = queue.toKey("");
  const guard = [liveKey(queue, plan.runId), finishedKey(queue, plan.runId)];
  const stillFinished = async () =>
    Number(await client.runCommand("harnessDeleteIfFinished", [...guard, plan.marker, "check"])) === 0;
  const keysOfJob = new Map<string, number>();
  for (const name of plan.keys) keysOfJob.set(name.split(":")[0], (keysOfJob.get(name.split(":")[0]) ?? 0) + 1);
  let removed = 0;
  for (const jobId of plan.jobIds) {
    if (!(await stillFinished())) return { removed, stopped: "a batch started on it meanwhile" };
    if ((await queue.remove(jobId)) !== 1) return { removed, stopped: `its job ${jobId} is locked by a worker` };
    removed += keysOfJob.get(jobId) ?? 0;
  }
  const jobIds = new Set(plan.jobIds);
  const rest = plan.keys.filter((name) => !jobIds.has(name.split(":")[0]));
  const others = rest.filter((name) => !name.startsWith("harness-finished:")).map((name) => prefix + name);
  const gone = Number(await client.runCommand("harnessDeleteIfFinished", [...guard, plan.marker, "all", ...others]));
  if (gone < 0) return { removed, stopped: "a batch started on it meanwhile" };
  return { removed: removed + gone };
}

// When Redis comes back empty (restarted without persistence, flushed) the queue forgets its jobs,
// the tries' records, the run's spend and the results not yet collected. Nothing of that is lost:
// - the batch writes a marker key when it starts; the marker gone is how the batch and each
//   worker know Redis lost its state (a restart that kept its data keeps the marker);
// - each worker writes every try it starts and what it spent, and each final result it sends, on
//   its own disk too (`<workdir>/.harness-journal/`), and each final result also under a key of
//   its own in Redis (`harness-done:<job>`), which outlives the job's completion failing;
// - a worker that sees the marker gone (or that starts) puts its records back into Redis, where
//   missing; the batch, after a grace for that, takes a missing job's result from its `done` key,
//   leaves a job alone whose try still runs on a live worker, and queues again only the rest: the
//   worker that takes it records the lost try from its record (queue-try.ts), so its spend counts.
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Queue } from "bullmq";
import type { AttemptJournal, AttemptRecord } from "../attempt-journal.ts";
import { heartbeatKey } from "./dead-workers.ts";
import { tryField } from "./queue-ledger.ts";

/** How long a job's final result stays in Redis (seconds): as long as its tries' records. */
const DONE_TTL_S = 7 * 24 * 3600;
/** How often a worker looks at the marker. */
const WATCH_MS = 1000;
/** After the marker is found gone, how long the batch lets the workers put their records back. */
export const RECONCILE_GRACE_MS = 3000;

type RedisClient = Awaited<Queue["backend"]["client"]>;

function markerKey(queue: Queue): string {
  return queue.toKey("harness-marker");
}

function doneKey(queue: Queue, jobId: string): string {
  return queue.toKey(`harness-done:${jobId}`);
}

function triesKey(queue: Queue, jobId: string): string {
  return queue.toKey(`harness-tries:${jobId}`);
}

/** Puts a try's record back unless Redis has one, and the job's try counter at least past it. */
const RESTORE_TRY = `
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
local next = tonumber(redis.call('HGET', KEYS[1], 'next') or '0')
local n = math.floor(tonumber(ARGV[1]))
if next < n then redis.call('HSET', KEYS[1], 'next', n) end
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1`;

/** SET NX, with a time to live when ARGV[2] is above 0 (the client BullMQ hands out has no NX). */
const SET_NEW = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if tonumber(ARGV[2]) > 0 then redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) else redis.call('SET', KEYS[1], ARGV[1]) end
return 1`;

const withCommands = new WeakSet<object>();

async function clientOf(queue: Queue): Promise<RedisClient> {
  const client = await queue.backend.client;
  if (!withCommands.has(client)) {
    client.defineCommand("harnessRestoreTry", { numberOfKeys: 1, lua: RESTORE_TRY });
    client.defineCommand("harnessSetNew", { numberOfKeys: 1, lua: SET_NEW });
    withCommands.add(client);
  }
  return client;
}

async function setNew(queue: Queue, key: string, value: string, ttlS: number): Promise<boolean> {
  const client = await clientOf(queue);
  return Number(await client.runCommand("harnessSetNew", [key, value, ttlS])) === 1;
}

/** The batch's marker: set (kept when there is one); returns its value. */
export async function setMarker(queue: Queue): Promise<string> {
  await setNew(queue, markerKey(queue), `${Date.now()}-${randomBytes(4).toString("hex")}`, 0);
  return (await (await clientOf(queue)).get(markerKey(queue))) ?? "";
}

/** The marker's value now (null: Redis lost what the batch had put in it). */
export async function markerOf(queue: Queue): Promise<string | null> {
  const client = await clientOf(queue);
  return client.get(markerKey(queue));
}

/** A job's final result as a worker stored it (signed; the batch verifies it), or undefined. */
export async function doneValue(queue: Queue, jobId: string): Promise<unknown> {
  const client = await clientOf(queue);
  const text = await client.get(doneKey(queue, jobId));
  if (text === null) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What a worker wrote on its own disk: tries (`<job>.<n>.json`) and final results (`<job>.done.json`). */
export class WorkerDisk {
  readonly dir: string;

  constructor(workRoot: string) {
    this.dir = join(workRoot, ".harness-journal");
  }

  /** The journal of try `n` of a job: its record goes to Redis (`inRedis`) and to this disk. */
  journalFor(jobId: string, n: number, inRedis: AttemptJournal): AttemptJournal {
    return {
      write: (record: AttemptRecord) => {
        this.put(`${jobId}.try-${tryField(n, record)}.json`, record);
        return inRedis.write(record);
      },
    };
  }

  /** Stores a job's final (signed) result here and in Redis; Redis may be away (the disk holds it). */
  async saveDone(queue: Queue, jobId: string, value: object): Promise<void> {
    this.put(`${jobId}.done.json`, value);
    try {
      const client = await clientOf(queue);
      await client.set(doneKey(queue, jobId), JSON.stringify(value), { EX: DONE_TTL_S });
    } catch {
      // Redis is away: the disk holds it, and goes back into Redis when the worker sees it again
    }
  }

  /** Try `n`'s record is taken back (a rate-limited try runs again as the same attempt). */
  forget(jobId: string, n: number): void {
    for (const name of this.names())
      if (name.startsWith(`${jobId}.try-${n}.`)) rmSync(join(this.dir, name), { force: true });
  }

  /** A job's final result stored on this disk. */
  done(jobId: string): object | undefined {
    return this.read(`${jobId}.done.json`);
  }

  /**
   * Puts this disk's records back into Redis where Redis has none: final results as `done` keys,
   * tries as fields of their job's hash. Returns how many of each it put back.
   */
  async restore(queue: Queue): Promise<{ results: number; tries: number }> {
    const names = this.names();
    const client = await clientOf(queue);
    const restored = { results: 0, tries: 0 };
    for (const name of names) {
      const done = /^(.+)\.done\.json$/.exec(name);
      const tryOf = /^(.+)\.try-(\d+(?:\.\d+)?)\.json$/.exec(name);
      const value = this.read(name);
      if (!value) continue;
      if (done) {
        if (await setNew(queue, doneKey(queue, done[1]), JSON.stringify(value), DONE_TTL_S)) restored.results++;
      } else if (tryOf && !this.done(tryOf[1])) {
        const args = [triesKey(queue, tryOf[1]), tryOf[2], JSON.stringify(value), DONE_TTL_S];
        await client.runCommand("harnessRestoreTry", args);
        restored.tries++;
      }
    }
    return restored;
  }

  private names(): string[] {
    try {
      return readdirSync(this.dir).filter((name) => name.endsWith(".json"));
    } catch {
      return [];
    }
  }

  private put(name: string, value: object): void {
    mkdirSync(this.dir, { recursive: true });
    const path = join(this.dir, name);
    writeFileSync(`${path}.tmp`, JSON.stringify(value));
    renameSync(`${path}.tmp`, path);
  }

  private read(name: string): object | undefined {
    try {
      return JSON.parse(readFileSync(join(this.dir, name), "utf8")) as object;
    } catch {
      return undefined;
    }
  }
}

/**
 * A worker's watch on the marker: once it has seen it, the marker gone means Redis restarted
 * empty; the worker says so and puts its disk's records back (and does again at each loss).
 */
export function watchMarker(queue: Queue, disk: WorkerDisk, log: (line: string) => void): () => void {
  // The batch sets a new value after a loss, maybe before this worker looks: a changed value is a loss too.
  let seen: string | null = null;
  let isLooking = false;
  const look = async () => {
    if (isLooking) return;
    isLooking = true;
    try {
      const now = await markerOf(queue);
      if (seen !== null && now !== seen) {
        const restored = await disk.restore(queue);
        log(
          `Redis lost the queue's state (its marker is gone: restarted empty?); put back ${restored.results} results and ${restored.tries} tries from ${disk.dir}`,
        );
      }
      seen = now;
    } catch {
      // Redis is away: the next look tries again
    } finally {
      isLooking = false;
    }
  };
  void look();
  const timer = setInterval(() => void look(), WATCH_MS);
  return () => clearInterval(timer);
}

/** Heartbeat counts the batch saw per worker, and when each last moved. */
export type Beats = Map<string, { count: string | null; movedAt: number }>;
/** A worker whose count stood still this long is not running anything. */
const STILL_MS = 4000;

/**
 * Whether a try of the job is still running on a live worker: its record (put back by its worker,
 * or written at its next model call) names a worker whose heartbeat still moves. Such a job is
 * not queued again: its worker stores its result under the job's `done` key when it ends.
 */
export async function hasLiveTry(queue: Queue, jobId: string, beats: Beats, now: number): Promise<boolean> {
  const client = await clientOf(queue);
  const fields = await client.hgetall(triesKey(queue, jobId));
  for (const [field, text] of Object.entries(fields)) {
    if (field === "next") continue;
    let by: unknown;
    try {
      by = (JSON.parse(text) as AttemptRecord).by;
    } catch {
      continue;
    }
    if (typeof by !== "string") continue;
    const count = await client.get(heartbeatKey(queue, by));
    const seen = beats.get(by);
    if (!seen || seen.count !== count) beats.set(by, { count, movedAt: now });
    if (count !== null && now - (beats.get(by)?.movedAt ?? 0) < STILL_MS) return true;
  }
  return false;
}

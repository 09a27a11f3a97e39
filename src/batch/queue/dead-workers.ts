// Gives a dead worker's jobs back in seconds, without waiting for their locks to lapse, and
// without mistaking a stall for a death. Each worker counts up a heartbeat key in Redis every
// second; each job records the name of the worker running it (BullMQ's `processedBy`). A job
// whose worker's count has not moved across several checks goes back to the queue. A stall of
// Redis (paused, a slow disk) holds the beats and the checks alike, and the count moves again
// as soon as Redis does, so a stall of any length reruns nothing; a worker process killed, or a
// machine gone, stops counting for good. BullMQ's own lock stays as the backstop (queue-target.ts).
import type { Queue } from "bullmq";

/** How often a worker counts its heartbeat up. */
const HEARTBEAT_MS = 1000;
/** How often a worker looks for jobs of dead workers. */
const CHECK_MS = 2000;
/** Checks in a row a worker's count must stand still at before its jobs are taken back (about 6 s). */
const STILL_CHECKS = 3;
/** A heartbeat key outlives its worker by this long (seconds), then Redis drops it. */
const HEARTBEAT_TTL_S = 24 * 3600;

export function heartbeatKey(queue: Queue, worker: string): string {
  return queue.toKey(`harness-heartbeat:${worker}`);
}

/** Counts this worker's heartbeat up until the returned function is called. */
export function startHeartbeat(queue: Queue, worker: string): () => void {
  const key = heartbeatKey(queue, worker);
  let isBeating = false;
  let beats = 0;
  const beat = async () => {
    if (isBeating) return; // the last beat still waits for Redis
    isBeating = true;
    try {
      const client = await queue.backend.client;
      await client.set(key, ++beats, { EX: HEARTBEAT_TTL_S });
    } catch {
      // Redis is away; the next beat tries again
    } finally {
      isBeating = false;
    }
  };
  void beat();
  const timer = setInterval(() => void beat(), HEARTBEAT_MS);
  return () => clearInterval(timer);
}

/** Starts the checks on `queue` (skipping this worker's own jobs); the returned function stops them. */
export function watchDeadWorkers(queue: Queue, self: string, log: (line: string) => void): () => void {
  const last = new Map<string, { count: string | null; stillFor: number }>();
  let isChecking = false;
  const check = async () => {
    if (isChecking) return; // Redis is slow (or paused): the last check is still waiting for it
    isChecking = true;
    try {
      const client = await queue.backend.client;
      const active = await queue.getActive();
      const owners = [
        ...new Set(active.flatMap((job) => (job.processedBy && job.processedBy !== self ? [job.processedBy] : []))),
      ];
      const dead = new Set<string>();
      for (const owner of owners) {
        const count = await client.get(heartbeatKey(queue, owner));
        const seen = last.get(owner);
        const stillFor = seen && seen.count === count ? seen.stillFor + 1 : 0;
        last.set(owner, { count, stillFor });
        if (stillFor >= STILL_CHECKS) dead.add(owner);
      }
      for (const owner of last.keys()) if (!owners.includes(owner)) last.delete(owner);
      for (const job of active) {
        if (!job.id || !job.processedBy || !dead.has(job.processedBy)) continue;
        const token = await client.get(`${queue.toKey(job.id)}:lock`);
        if (!token) continue; // its lock lapsed: BullMQ's own stalled check takes it back
        await job.moveToWait(token).catch(() => {}); // another worker took it back first
        log(`worker ${job.processedBy} is gone: ${job.data?.task?.id ?? job.id} is back in the queue`);
      }
    } catch {
      // Redis is away: the next check tries again
    } finally {
      isChecking = false;
    }
  };
  const timer = setInterval(() => void check(), CHECK_MS);
  return () => clearInterval(timer);
}

// What queue workers write down in Redis so that nothing spent is lost and the batch's budget
// holds across them: each job's tries (one hash per job: a field per try, the attempt's record,
// kept up to date as it runs), and each run's spend (one number, added to after every model call
// of any of its tasks on any worker). A worker that dies leaves its try's record; whoever takes
// the job next records that try as `crashed` with what it spent (attempt-journal.ts).
import type { Queue } from "bullmq";
import type { AttemptJournal, AttemptRecord } from "../attempt-journal.ts";

/** How long a job's tries and a run's spend stay in Redis after their last change (seconds). */
const LEDGER_TTL_S = 7 * 24 * 3600;
/** How often a running task with a budget looks at its run's spend (others' calls count too). */
const BUDGET_POLL_MS = 500;

type RedisClient = Awaited<Queue["backend"]["client"]>;

/** The next try's number, and the records of the tries before it (all in one step: no two workers get one number). */
const CLAIM_TRY = `
local n = redis.call('HINCRBY', KEYS[1], 'next', 1)
redis.call('EXPIRE', KEYS[1], ARGV[1])
return {n, redis.call('HGETALL', KEYS[1])}`;
const ADD_SPEND = `
local total = redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return total`;
/** A run's spend starts at what its results already hold, unless workers are already counting it. */
const START_SPEND = `
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) end
return redis.call('GET', KEYS[1])`;

const withCommands = new WeakSet<object>();

async function clientOf(queue: Queue): Promise<RedisClient> {
  const client = await queue.backend.client;
  if (!withCommands.has(client)) {
    client.defineCommand("harnessClaimTry", { numberOfKeys: 1, lua: CLAIM_TRY });
    client.defineCommand("harnessAddSpend", { numberOfKeys: 1, lua: ADD_SPEND });
    client.defineCommand("harnessStartSpend", { numberOfKeys: 1, lua: START_SPEND });
    withCommands.add(client);
  }
  return client;
}

function triesKey(queue: Queue, jobId: string): string {
  return queue.toKey(`harness-tries:${jobId}`);
}

function spendKey(queue: Queue, runId: string): string {
  return queue.toKey(`harness-spend:${runId}`);
}

/** A try's field in its job's hash: `n`, or `n.c` for run `c` of a best-of-N attempt. */
export function tryField(n: number, record: AttemptRecord): string {
  return record.copy && record.copy > 1 ? `${n}.${record.copy}` : String(n);
}

/**
 * Claims the job's next try: its number, and the records the tries before it left (oldest first,
 * each with its try's number: a best-of-N try leaves one record per run).
 */
export async function claimTry(
  queue: Queue,
  jobId: string,
): Promise<{ n: number; earlier: Array<{ n: number; record: AttemptRecord }> }> {
  const client = await clientOf(queue);
  const [n, flat] = (await client.runCommand("harnessClaimTry", [triesKey(queue, jobId), LEDGER_TTL_S])) as [
    number,
    string[],
  ];
  const earlier: Array<{ n: number; record: AttemptRecord }> = [];
  for (let index = 0; index < flat.length; index += 2) {
    const field = /^(\d+)(?:\.\d+)?$/.exec(flat[index]);
    if (!field || Number(field[1]) >= n) continue; // "next", or a later try's
    try {
      earlier.push({ n: Number(field[1]), record: JSON.parse(flat[index + 1]) as AttemptRecord });
    } catch {
      // not a record of ours
    }
  }
  return { n: Number(n), earlier: earlier.sort((a, b) => a.n - b.n) };
}

/** One try's record in the job's hash, written in order (each write waits for the one before). */
export class TryJournal implements AttemptJournal {
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly queue: Queue,
    private readonly jobId: string,
    private readonly n: number,
  ) {}

  write(record: AttemptRecord): Promise<void> {
    const json = JSON.stringify(record);
    const written = this.last.then(async () => {
      const client = await clientOf(this.queue);
      await client.hset(triesKey(this.queue, this.jobId), { [tryField(this.n, record)]: json });
    });
    this.last = written.catch(() => {}); // Redis away: the next write carries the whole record again
    return this.last as Promise<void>;
  }

  /** This try's record is taken back (a rate-limited try runs again as the same attempt). */
  async forget(): Promise<void> {
    await this.last;
    const client = await clientOf(this.queue);
    // Its field, and each run's of a best-of-N try (at most 16: batch-task.ts).
    const fields = [String(this.n), ...Array.from({ length: 15 }, (_, index) => `${this.n}.${index + 2}`)];
    await client.hdel(triesKey(this.queue, this.jobId), ...fields).catch(() => 0);
  }

  /** Every write so far has reached Redis (or failed). */
  flushed(): Promise<unknown> {
    return this.last;
  }
}

/** Sets the run's spend to `spentBefore` unless it is counted already; returns what it is. */
export async function startRunSpend(queue: Queue, runId: string, spentBefore: number): Promise<number> {
  const client = await clientOf(queue);
  return Number(await client.runCommand("harnessStartSpend", [spendKey(queue, runId), spentBefore, LEDGER_TTL_S]));
}

/** What the run's tasks have spent so far, on every worker (0 before any). */
export async function runSpend(queue: Queue, runId: string): Promise<number> {
  const client = await clientOf(queue);
  return Number((await client.get(spendKey(queue, runId))) ?? 0);
}

/**
 * The batch's `--max-cost` on a worker: each attempt's spend is added to the run's total in Redis
 * as it grows, and the total (every worker's tasks) is watched, so reaching it stops this worker's
 * running tasks too, as the same cap does on one machine (cost-budget.ts). Same shape as CostBudget.
 */
export class QueueBudget {
  private readonly controller = new AbortController();
  private readonly counted = new Map<string, number>();
  private total = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly queue: Queue,
    private readonly runId: string,
    readonly limit: number,
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get spent(): number {
    return this.total;
  }

  /** Reads the run's spend now and then every BUDGET_POLL_MS, until `close`. */
  async start(): Promise<void> {
    await this.observe(runSpend(this.queue, this.runId));
    this.timer = setInterval(() => void this.observe(runSpend(this.queue, this.runId)), BUDGET_POLL_MS);
  }

  update(key: string, cost: number): void {
    const delta = cost - (this.counted.get(key) ?? 0);
    this.counted.set(key, cost);
    if (delta <= 0) return;
    void this.observe(
      clientOf(this.queue).then((client) =>
        client.runCommand("harnessAddSpend", [spendKey(this.queue, this.runId), delta.toFixed(6), LEDGER_TTL_S]),
      ),
    );
  }

  settle(key: string, cost: number): void {
    this.update(key, cost);
    this.counted.delete(key);
  }

  close(): void {
    clearInterval(this.timer);
  }

  private async observe(total: Promise<unknown>): Promise<void> {
    try {
      this.total = Math.max(this.total, Number(await total));
    } catch {
      return; // Redis away: the next poll tries again
    }
    if (this.total >= this.limit && !this.controller.signal.aborted) this.controller.abort();
  }
}

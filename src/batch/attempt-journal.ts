// What the batch knows of each running attempt, kept where it outlives the batch: a file per
// attempt beside the results file (this machine), or a field in Redis (queue workers). Written
// before the task's harness starts and after each model call, it is how an attempt cut off by a
// SIGKILL of its batch or worker is still recorded (`crashed`, with what it spent) when the run
// resumes or its job comes back, rather than lost: its result line is then written from it.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { EMPTY_USAGE } from "../core/messages.ts";
import { folderNameOf } from "./batch-task.ts";
import type { Spend } from "./harness-child.ts";
import { type InFlight, stampOf, type TaskResult, type TaskTokens, tokensOf } from "./task-result.ts";

/** One attempt as its journal holds it. */
export interface AttemptRecord {
  id: string;
  attempt: number;
  /** Which of a best-of-N task's runs of this attempt (2, 3, ...; absent for the first): each has its own record. */
  copy?: number;
  /** ISO 8601: when the attempt started, and when the record was last written. */
  startedAt: string;
  updatedAt: string;
  /** The machine it ran on (its session file is there) and who ran it (a worker's name). */
  host: string;
  by?: string;
  /** Its working copy, once made: the one folder whose session is this attempt's. */
  workdir?: string;
  /** Its harness's session, once the harness said which (and where sessions go on `host`). */
  sessionId?: string;
  sessionsDir: string;
  provider?: string;
  model?: string;
  api?: string;
  /** Model calls and their spend as far as the batch has read them from the harness. */
  calls: number;
  spent: Spend;
}

/** Where a running attempt's record is written; `write` is called in order, each record whole. */
export interface AttemptJournal {
  write(record: AttemptRecord): void | Promise<void>;
}

/** A record for an attempt that is starting now. */
export function newAttemptRecord(id: string, attempt: number, sessionsDir: string, by?: string): AttemptRecord {
  const now = new Date().toISOString();
  return {
    id,
    attempt,
    startedAt: now,
    updatedAt: now,
    host: hostname(),
    ...(by ? { by } : {}),
    sessionsDir,
    calls: 0,
    spent: { usage: { ...EMPTY_USAGE }, cost: 0 },
  };
}

/**
 * What the attempt's harness had spent: its session file's, where it can be read (written by the
 * harness before each usage event reaches the batch, so it holds calls the batch never read);
 * else the record's. Undefined when neither is known (`cost` undefined: a price is unknown). With it,
 * the call its harness had in flight (not in `spent`); `open` is whether the harness's events showed
 * one (unknown after a kill of the batch: the file decides).
 */
export type SessionSpend = (
  record: Pick<AttemptRecord, "sessionId" | "sessionsDir" | "workdir" | "startedAt">,
  open?: boolean,
) => { spent: Spend; calls: number; sessionId: string; inFlight?: InFlight } | undefined;

/** `result` with the call in flight added to its tokens and cost, and shown apart (`inFlight`). */
export function withInFlight<T extends { tokens?: TaskTokens; cost?: number }>(
  result: T,
  inFlight: InFlight | undefined,
): T & { inFlight?: InFlight } {
  if (!inFlight) return result;
  const tokens = result.tokens ?? { input: 0, output: 0, cached: 0 };
  const cost =
    result.cost === undefined || inFlight.cost === undefined ? {} : { cost: sumCost(result.cost, inFlight.cost) };
  return { ...result, tokens: addTokens(tokens, inFlight.tokens), ...cost, inFlight };
}

function addTokens(a: TaskTokens, b: TaskTokens): TaskTokens {
  return { input: a.input + b.input, output: a.output + b.output, cached: a.cached + b.cached };
}

function sumCost(a: number, b: number): number {
  return Number((a + b).toFixed(6));
}

/** The `crashed` result of an attempt that its batch or worker never finished. */
export function lostAttemptResult(
  record: AttemptRecord,
  run: { runId: string; thinking?: string },
  why: string,
  sessionSpend: SessionSpend,
): TaskResult {
  const fromSession = record.host === hostname() ? sessionSpend(record) : undefined;
  const spent = fromSession?.spent ?? record.spent;
  const sessionId = fromSession?.sessionId ?? record.sessionId ?? null;
  const result: TaskResult = {
    id: record.id,
    status: "crashed",
    ...stampOf(run.runId, run.thinking),
    provider: record.provider ?? null,
    model: record.model ?? null,
    api: record.api ?? null,
    attempt: record.attempt,
    answer: "",
    turns: fromSession?.calls ?? record.calls,
    tokens: tokensOf(spent.usage),
    ...(spent.cost !== undefined ? { cost: spent.cost } : {}),
    durationMs: Math.max(0, Date.parse(record.updatedAt) - Date.parse(record.startedAt)),
    finishedAt: record.updatedAt,
    testExitCode: null,
    sessionId,
    sessionPath: sessionId ? join(record.sessionsDir, `${sessionId}.jsonl`) : null,
    workdir: record.workdir ?? null,
    diff: null,
    error: why,
  };
  return withInFlight(result, fromSession?.inFlight);
}

/** This machine's journal: `results.attempts/<run>/<task>.<attempt>.json`, each replaced whole (rename). */
export class AttemptFiles implements AttemptJournal {
  readonly dir: string;

  constructor(outPath: string, runId: string) {
    this.dir = join(`${outPath.replace(/\.jsonl$/, "")}.attempts`, runId);
  }

  write(record: AttemptRecord): void {
    mkdirSync(this.dir, { recursive: true });
    const path = this.pathOf(record.id, record.attempt, record.copy);
    writeFileSync(`${path}.tmp`, JSON.stringify(record));
    renameSync(`${path}.tmp`, path);
  }

  /** The attempt's result line is written: its records (each copy's) are no longer needed. */
  remove(id: string, attempt: number): void {
    const prefix = `${folderNameOf(id)}.${attempt}.`;
    let names: string[] = [];
    try {
      names = readdirSync(this.dir).filter(
        (name) => name.startsWith(prefix) && /^\d+\.json$|^json$/.test(name.slice(prefix.length)),
      );
    } catch {
      return;
    }
    for (const name of names) rmSync(join(this.dir, name), { force: true });
  }

  /** The records left: attempts without a result line yet, unless a batch died between the two. */
  list(): AttemptRecord[] {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((name) => name.endsWith(".json"));
    } catch {
      return [];
    }
    return names.flatMap((name) => {
      try {
        const record = JSON.parse(readFileSync(join(this.dir, name), "utf8")) as Partial<AttemptRecord>;
        if (typeof record.id !== "string" || typeof record.attempt !== "number") return [];
        return [{ calls: 0, spent: { usage: { ...EMPTY_USAGE }, cost: 0 }, ...record } as AttemptRecord];
      } catch {
        return []; // replaced whole by rename: only a stray .tmp could be torn, and it is not listed
      }
    });
  }

  private pathOf(id: string, attempt: number, copy?: number): string {
    return join(this.dir, `${folderNameOf(id)}.${attempt}.${copy && copy > 1 ? `${copy}.` : ""}json`);
  }
}

/**
 * Whether a lost attempt leaves a line: one that made no model call spent nothing and is simply
 * run again as the same attempt (a Ctrl-C while the tasks were starting costs no attempt).
 */
export function hasSpent(result: TaskResult): boolean {
  return result.tokens.input + result.tokens.output + result.tokens.cached > 0;
}

/**
 * Records each attempt of the run that its batch never finished (a SIGKILL, a crash, Ctrl-C), once:
 * an attempt whose (task, attempt) already has a result line is only cleared (a batch killed between
 * writing the line and clearing the record). Returns the lines it wrote.
 */
/**
 * One line per lost attempt: a best-of-N task's copies of one attempt each left a record, and
 * their spend is summed into the attempt's one `crashed` line (the first copy's line otherwise).
 */
export function mergeCopies(results: TaskResult[]): TaskResult[] {
  const byAttempt = new Map<string, TaskResult>();
  for (const result of results) {
    const key = `${result.id}\u0000${result.attempt}`;
    const seen = byAttempt.get(key);
    if (!seen) {
      byAttempt.set(key, result);
      continue;
    }
    const cost =
      seen.cost === undefined && result.cost === undefined ? {} : { cost: (seen.cost ?? 0) + (result.cost ?? 0) };
    const inFlight =
      seen.inFlight || result.inFlight ? { inFlight: sumInFlight([seen.inFlight, result.inFlight]) } : {};
    byAttempt.set(key, {
      ...seen,
      turns: seen.turns + result.turns,
      tokens: addTokens(seen.tokens, result.tokens),
      ...cost,
      ...inFlight,
      durationMs: Math.max(seen.durationMs, result.durationMs),
    });
  }
  return [...byAttempt.values()];
}

/** The calls in flight of a best-of-N attempt's runs, together (undefined when none had one). */
export function sumInFlight(parts: Array<InFlight | undefined>): InFlight | undefined {
  const present = parts.filter((part): part is InFlight => part !== undefined);
  if (present.length === 0) return undefined;
  return present.reduce((total, part) => ({
    tokens: addTokens(total.tokens, part.tokens),
    ...(total.cost === undefined || part.cost === undefined ? {} : { cost: sumCost(total.cost, part.cost) }),
    estimated: total.estimated || part.estimated,
  }));
}

export function recordLostAttempts(
  files: AttemptFiles,
  results: TaskResult[],
  run: { runId: string; thinking?: string },
  sessionSpend: SessionSpend,
  append: (result: TaskResult) => void,
): TaskResult[] {
  const written: TaskResult[] = [];
  const records = files.list().sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  const lost = mergeCopies(
    records.map((record) =>
      lostAttemptResult(
        record,
        run,
        "the batch stopped while this attempt ran (killed, or interrupted); recorded when the run resumed",
        sessionSpend,
      ),
    ),
  );
  for (const result of lost) {
    const has = (line: TaskResult) => line.id === result.id && line.attempt === result.attempt;
    if (!results.some(has) && hasSpent(result)) {
      append(result);
      written.push(result);
    }
    files.remove(result.id, result.attempt);
  }
  return written;
}

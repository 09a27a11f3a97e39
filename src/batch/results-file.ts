// results.jsonl: one JSON line per finished task, appended as tasks finish. A batch that
// crashed leaves whole lines and at most one torn last line; reading drops the torn line, so
// re-running the same command redoes only what has no whole line.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, truncateSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { NO_TOKENS, TASK_STATUSES, type TaskResult } from "./task-result.ts";

/** A results file with a line that claims to be a result but is not one (a field of the wrong type). */
export class ResultsFileError extends Error {}

const count = z.number().finite().nonnegative();
const text = z.string().nullable().default(null);

/**
 * A result line as it is read: a results file may be someone else's (a report of a colleague's
 * run), so every field the report prints or sums is checked for its type before anything uses it
 * (a string where a number belongs once crashed the report, and went into the HTML page as
 * markup). Fields older versions did not write get their empty value; fields this version does not
 * know are kept.
 */
const RESULT_LINE = z.looseObject({
  id: z.string(),
  status: z.enum(TASK_STATUSES),
  runId: z.string().optional(),
  provider: text,
  model: text,
  api: text,
  thinking: text,
  harnessVersion: z.string().default("?"),
  attempt: z.number().int().positive().default(1),
  answer: z.string().default(""),
  turns: z.number().int().nonnegative().default(0),
  tokens: z.object({ input: count, output: count, cached: count }).default({ ...NO_TOKENS }),
  cost: count.optional(),
  durationMs: count.default(0),
  finishedAt: z.string().default(""),
  testExitCode: z.number().int().nullable().default(null),
  sessionId: text,
  sessionPath: text,
  workdir: text,
  diff: text,
  error: z.string().optional(),
});

/**
 * The whole lines of a results file (none when it does not exist yet). A line that is not JSON,
 * or JSON without a string `id` and `status`, was not written by us and names no finished task; a
 * line that has them but a field of the wrong type is an error naming the line and the field.
 */
export function readResults(path: string): TaskResult[] {
  if (!existsSync(path)) return [];
  const results: TaskResult[] = [];
  for (const [index, line] of wholeText(readFileSync(path, "utf8")).split("\n").entries()) {
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isClaimedResult(value)) continue;
    const parsed = RESULT_LINE.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue.path.map(String).join(".") || "(the line)";
      throw new ResultsFileError(`${path}:${index + 1}: ${field}: ${issue.message}; this line is not a task's result`);
    }
    // runId is absent only in files of versions before runs had ids; the report reads them as run "-".
    results.push(parsed.data as TaskResult);
  }
  return results;
}

function isClaimedResult(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const { id, status } = value as { id?: unknown; status?: unknown };
  return typeof id === "string" && typeof status === "string";
}

/** Text up to its last newline: what follows it is a line a crash cut short. */
function wholeText(text: string): string {
  return text.slice(0, text.lastIndexOf("\n") + 1);
}

/** Appends result lines, each in one write, after dropping a torn last line left by a crash. */
export class ResultsWriter {
  private readonly fd: number;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    if (existsSync(path)) truncateSync(path, Buffer.byteLength(wholeText(readFileSync(path, "utf8"))));
    this.fd = openSync(path, "a");
  }

  append(result: TaskResult): void {
    this.appendAll([result]);
  }

  /** The lines in one write: a crash leaves them all or a torn last one, which reading drops. */
  appendAll(results: TaskResult[]): void {
    const bytes = Buffer.from(results.map((result) => `${JSON.stringify(result)}\n`).join(""));
    for (let offset = 0; offset < bytes.length; ) offset += writeSync(this.fd, bytes, offset);
  }

  close(): void {
    closeSync(this.fd);
  }
}

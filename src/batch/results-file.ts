// results.jsonl: one JSON line per finished task, appended as tasks finish. A batch that
// crashed leaves whole lines and at most one torn last line; reading drops the torn line, so
// re-running the same command redoes only what has no whole line.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, truncateSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { TaskResult } from "./task-result.ts";

/** The whole lines of a results file (none when it does not exist yet). */
export function readResults(path: string): TaskResult[] {
  if (!existsSync(path)) return [];
  const results: TaskResult[] = [];
  for (const line of wholeText(readFileSync(path, "utf8")).split("\n")) {
    if (!line.trim()) continue;
    try {
      const value = JSON.parse(line) as TaskResult;
      if (value && typeof value.id === "string" && typeof value.status === "string") results.push(value);
    } catch {
      // A line that is not JSON was not written by us; it names no finished task.
    }
  }
  return results;
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

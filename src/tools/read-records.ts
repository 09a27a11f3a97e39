import type { Stats } from "node:fs";

/** What the model last saw of a file: its modification time and size at that moment. */
interface ReadRecord {
  mtimeMs: number;
  size: number;
}

/** Notes in the run's state that the model knows this file's current content (after read_file or write_file). */
export function recordRead(state: Map<string, unknown>, absolute: string, stats: Stats): void {
  state.set(`read:${absolute}`, { mtimeMs: stats.mtimeMs, size: stats.size } satisfies ReadRecord);
}

/** Whether the model knows the file as it is now on disk: never read, changed since, or current. */
export function checkReadRecord(
  state: Map<string, unknown>,
  absolute: string,
  stats: Stats,
): "unread" | "changed" | "current" {
  const record = state.get(`read:${absolute}`) as ReadRecord | undefined;
  if (!record) return "unread";
  return record.mtimeMs === stats.mtimeMs && record.size === stats.size ? "current" : "changed";
}

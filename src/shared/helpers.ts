// Small helpers every layer uses, each with one behaviour, so the same number never reads two
// ways and the same chore is never done two ways. This module imports nothing (Node's globals
// only), so any module may import it.

/** Token counts for people: 950, 1.2k, 12k, 1.5M. */
export function formatTokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${trimZero((count / 1000).toFixed(count < 10_000 ? 1 : 0))}k`;
  return `${trimZero((count / 1_000_000).toFixed(1))}M`;
}

/** Sizes in decimal units, as disks and downloads state them: 900 B, 5.0 KB, 2.5 GB. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

/** Most decimals a cost shows: costs are counted to the micro-dollar, so this is room to spare. */
const MAX_COST_DECIMALS = 10;

/**
 * Dollars: $0, $1.27, and under a dollar four decimals ($0.0042) or as many more as two
 * significant digits need ($0.00002), so a cheap call or batch task never reads as free.
 */
export function formatCost(usd: number): string {
  if (usd === 0) return "$0";
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  const decimals = Math.min(MAX_COST_DECIMALS, Math.max(4, 1 - Math.floor(Math.log10(usd))));
  return `$${usd.toFixed(decimals).replace(/(\.\d{4}\d*?)0+$/, "$1")}`;
}

/** Durations from milliseconds: 12.3s, 2m05s, 1h05m. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return minutes < 60
    ? `${minutes}m${String(seconds).padStart(2, "0")}s`
    : `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}m`;
}

function trimZero(text: string): string {
  return text.replace(/\.0$/, "");
}

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** Waits `ms` (at once when not positive), or less if the signal aborts first; never rejects. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}

/** A signal that aborts after `ms`, or when `parent` does; `clear()` when the work is done. */
export interface Deadline {
  signal: AbortSignal;
  /** Whether it was the time that ran out (not the parent). */
  isExpired(): boolean;
  clear(): void;
}

/**
 * A time cap on a timer we own. Not AbortSignal.timeout: on Node 20 its timer could be collected
 * while fetch waited on a signal combined from it (AbortSignal.any), and a trickling page then
 * held the run past every cap. This timer, and so the controller it aborts, lives until cleared.
 */
export function deadline(ms: number, parent?: AbortSignal): Deadline {
  const controller = new AbortController();
  let expired = false;
  const onParentAbort = () => controller.abort(parent?.reason);
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new Error(`no answer within ${ms / 1000} s`));
  }, ms);
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener("abort", onParentAbort, { once: true });
  return {
    signal: controller.signal,
    isExpired: () => expired,
    clear() {
      clearTimeout(timer);
      parent?.removeEventListener("abort", onParentAbort);
    },
  };
}

/**
 * Sends a signal to a whole process group (a child started with `detached: true` leads one), so
 * whatever it started goes too; a group that is already gone is not an error.
 */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals = "SIGKILL"): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/**
 * The first and last `keep` bytes of a long text, with the size of the cut between them on a line
 * of its own (head and tail are where errors and summaries usually are); a character split at
 * either cut is dropped rather than shown as U+FFFD. A text within 2 × `keep` bytes is returned whole.
 */
export function cutMiddle(text: string, keep: number): string {
  const buffer = Buffer.from(text);
  if (buffer.length <= 2 * keep) return text;
  const head = buffer
    .subarray(0, keep)
    .toString("utf8")
    .replace(/\uFFFD+$/, "");
  const tail = buffer
    .subarray(buffer.length - keep)
    .toString("utf8")
    .replace(/^\uFFFD+/, "");
  return `${head}\n[... ${buffer.length - 2 * keep} bytes cut from the middle of this output ...]\n${tail}`;
}

/** `1 model call`, `2 model calls`: a count with its noun, plural unless the count is one. */
export function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** The text cut to at most `max` characters, an ellipsis marking the cut (for one-line listings). */
export function cutWithEllipsis(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * A whole number of at least 1 written as plain digits, as flags and variables take counts:
 * "12" is 12; "012", "1e3", " 12", "0x10" and "1.0" are not counts (undefined).
 */
export function parsePositiveInteger(text: string): number | undefined {
  return /^[1-9]\d*$/.test(text) ? Number(text) : undefined;
}

/** `[x] run the tests`: a step of the model's plan on one line ([ ] pending, [>] in progress, [x] done). */
export function formatTodoItem(item: { content: string; status: "pending" | "in_progress" | "done" }): string {
  const mark = item.status === "done" ? "[x]" : item.status === "in_progress" ? "[>]" : "[ ]";
  return `${mark} ${item.content}`;
}

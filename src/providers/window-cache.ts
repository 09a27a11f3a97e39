// What local servers said of their context window, kept across runs in $HARNESS_HOME: a batch
// starts a harness per task, and each asked the same server the same two questions.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { makePrivateFolder, PRIVATE_FILE_MODE } from "../shared/private-files.ts";

/**
 * How long an answer (or a server's silence) is trusted. Short, because a llama.cpp restarted
 * with another `-c` says a new window: within this, the loop's overflow handling covers a server
 * that became smaller. Long enough that a batch asks each server a few times an hour, not per task.
 */
export const WINDOW_CACHE_TTL_MS = 10 * 60_000;

/** Per base URL and model: the window the server reported (null: it said none), and when. */
type Entries = Record<string, { window: number | null; at: number }>;

/** The cached answer: `{ window }` (undefined: the server had none), or undefined when not cached or stale. */
export function cachedWindow(file: string, key: string, now = Date.now()): { window: number | undefined } | undefined {
  const entry = readEntries(file)[key];
  if (!entry || !(now - entry.at >= 0 && now - entry.at < WINDOW_CACHE_TTL_MS)) return undefined;
  return { window: entry.window ?? undefined };
}

/** Records an answer; stale entries go. Written whole under a temporary name and renamed, so parallel runs never read half a file. */
export function rememberWindow(file: string, key: string, window: number | undefined, now = Date.now()): void {
  const entries = Object.fromEntries(
    Object.entries(readEntries(file)).filter(([, entry]) => now - entry.at < WINDOW_CACHE_TTL_MS),
  );
  entries[key] = { window: window ?? null, at: now };
  try {
    makePrivateFolder(dirname(file));
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(entries)}\n`, { mode: PRIVATE_FILE_MODE });
    renameSync(temporary, file);
  } catch {
    // A cache: a home folder we cannot write only means asking again next run.
  }
}

function readEntries(file: string): Entries {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as unknown;
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return {};
    return Object.fromEntries(
      Object.entries(parsed as Record<string, unknown>).filter(
        ([, entry]) =>
          typeof entry === "object" &&
          entry !== null &&
          typeof (entry as { at?: unknown }).at === "number" &&
          (typeof (entry as { window?: unknown }).window === "number" ||
            (entry as { window?: unknown }).window === null),
      ),
    ) as Entries;
  } catch {
    return {}; // none yet, or torn by hand: asked again
  }
}

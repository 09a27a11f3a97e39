// `--debug` and `--debug-file`: what harness does, a line each (the requests it sends and their
// answers, hooks, tool calls, settings files read), for finding out why something fails. Off by
// default, and then nothing here costs more than one check. The process has one log, as it has
// one stderr: the CLI turns it on before anything runs. Every line is redacted of the keys the
// CLI hands over and shown without control characters, whatever wrote it.
import { showControlChars } from "./control-chars.ts";
import { redactText } from "./redact.ts";

let sink: ((line: string) => void) | undefined;
let secrets: readonly string[] = [];

/** Turns the log on: each line goes to `write`, with `keys` redacted. */
export function startDebugLog(write: (line: string) => void, keys: readonly string[]): void {
  sink = write;
  secrets = keys;
}

/** Whether the log is on (to skip work that only feeds it). */
export function isDebugLogOn(): boolean {
  return sink !== undefined;
}

/** One line of the log, under its area (`api`, `hooks`, `tools`, `settings`), when the log is on. */
export function debugLog(area: string, text: string | (() => string)): void {
  if (!sink) return;
  const line = typeof text === "function" ? text() : text;
  sink(`${new Date().toISOString()} [${area}] ${redactText(showControlChars(line, ""), secrets)}\n`);
}

/** A URL as the log shows it: no password, and no `key=` query value (Gemini's key may ride there). */
export function loggedUrl(url: string | URL): string {
  const shown = new URL(url);
  if (shown.password) shown.password = "***";
  for (const name of [...shown.searchParams.keys()])
    if (/key|token|secret/i.test(name)) shown.searchParams.set(name, "***");
  return shown.href;
}

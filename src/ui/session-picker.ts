// `harness -r` without an id: the recent sessions, numbered, to pick one from at a terminal; in a
// headless run the same list goes to stderr with the usage line (nothing to ask, so exit 2).
import { showControlChars } from "../shared/control-chars.ts";
import type { Palette } from "./colors.ts";

/** What the list shows of a session (a session listing's summary has these and more). */
export interface PickableSession {
  id: string;
  /** Last write, ms. */
  updatedAt: number;
  cwd: string;
  firstPrompt: string;
  /** The pid of a live harness writing it. */
  inUseBy?: number;
}

/** `12 min ago`, `3 h ago`, `2 days ago`: how long since the session was last written. */
export function formatAge(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

/** One line per session: number, id, age, first prompt, folder (and "in use" when a live harness holds it). */
export function formatPickList(summaries: readonly PickableSession[], now: number): string[] {
  const width = String(summaries.length).length;
  return summaries.map((s, index) => {
    const inUse = s.inUseBy === undefined ? "" : `  in use (pid ${s.inUseBy})`;
    const prompt = s.firstPrompt || "(no prompt)";
    return showControlChars(
      `${String(index + 1).padStart(width)}  ${s.id}  ${formatAge(now - s.updatedAt)}  ${prompt}  ${s.cwd}${inUse}`,
      "",
    );
  });
}

/** Asks for a number until one from the list (its session id) or an empty answer (undefined: nothing picked). */
export async function pickSession(
  summaries: readonly PickableSession[],
  ask: (question: string) => Promise<string | undefined>,
  write: (text: string) => void,
  colors: Palette,
): Promise<string | undefined> {
  write(`${formatPickList(summaries, Date.now()).join("\n")}\n`);
  for (;;) {
    const answer = (await ask(colors.bold(`resume which? [1-${summaries.length}, Enter: none] `)))?.trim() ?? "";
    if (answer === "") return undefined;
    const picked = /^\d+$/.test(answer) ? summaries[Number(answer) - 1] : undefined;
    if (picked) return picked.id;
    write(`${colors.yellow(`${answer} is not a number from 1 to ${summaries.length}`)}\n`);
  }
}

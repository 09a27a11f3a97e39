// Which folder a resumed session works in. Its tools, sandbox root, instruction files (AGENTS.md)
// and folder trust all follow the folder harness works in, so continuing a session recorded in
// another folder must never quietly run its commands here. Headless, the run moves to the
// recorded folder (as `cd <folder> && harness -r <id>` would), says so in one line, and stops with
// a usage error when that folder is gone; an explicit --cwd wins, also with a line. A chat asks
// instead (ui/resume-folder-question.ts).
import { realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { assertNever } from "../core/messages.ts";
import type { ResumeFolderAnswer, ResumeFolderQuestion } from "../ui/resume-folder-question.ts";

/** Where a stored session was recorded, seen from the folder harness works in. */
export type RecordedFolder =
  | { kind: "here" }
  | { kind: "elsewhere"; folder: string }
  | { kind: "vanished"; folder: string };

/** Compares by real path, so a symlinked spelling of this folder counts as here. */
export function recordedFolder(recorded: string, cwd: string): RecordedFolder {
  if (!isDirectory(recorded)) return { kind: "vanished", folder: recorded };
  return realPath(recorded) === realPath(cwd) ? { kind: "here" } : { kind: "elsewhere", folder: recorded };
}

/** Where a resumed run works: a folder to move to (or none) and the line saying so, or why it does not run (and its exit code). */
export type FolderDecision = { moveTo?: string; notice?: string } | { error: string; code: 0 | 2 };

/**
 * The headless decision. `explicitCwd`: --cwd was given, so the person already chose the folder
 * (the line still says the session came from elsewhere, since its paths may name that folder).
 */
export function headlessFolder(
  place: RecordedFolder,
  sessionId: string,
  cwd: string,
  explicitCwd: boolean,
): FolderDecision {
  switch (place.kind) {
    case "here":
      return {};
    case "elsewhere":
    case "vanished":
      if (explicitCwd)
        return { notice: `session ${sessionId} was recorded in ${place.folder}; working in ${cwd}, as --cwd says` };
      return place.kind === "elsewhere"
        ? {
            moveTo: place.folder,
            notice: `session ${sessionId} was recorded in ${place.folder}: working there (--cwd <dir> picks another folder)`,
          }
        : {
            error: `session ${sessionId} was recorded in ${place.folder}, which no longer exists; give --cwd <dir> to continue it in another folder`,
            code: 2,
          };
    default:
      return assertNever(place);
  }
}

/** The chat's decision: --cwd wins as headless; otherwise the person is asked (cancelling resumes nothing). */
export async function chatFolder(
  place: RecordedFolder,
  sessionId: string,
  cwd: string,
  explicitCwd: boolean,
  ask: (question: ResumeFolderQuestion) => Promise<ResumeFolderAnswer>,
): Promise<FolderDecision> {
  if (place.kind === "here" || explicitCwd) return headlessFolder(place, sessionId, cwd, explicitCwd);
  const answer = await ask({ sessionId, recorded: place.folder, here: cwd, isVanished: place.kind === "vanished" });
  switch (answer) {
    case "switch":
      return { moveTo: place.folder, notice: `working in ${place.folder}` };
    case "stay":
      return { notice: `working in ${cwd}` };
    case "cancel":
      return { error: `nothing resumed; session ${sessionId} is left as it was`, code: 0 };
    default:
      return assertNever(answer);
  }
}

/** Goes to work in `folder` (as --cwd does) and returns it as the process sees it. */
export function moveTo(folder: string): string {
  process.chdir(folder);
  return process.cwd();
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

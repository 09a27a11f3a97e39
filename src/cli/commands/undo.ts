// `harness undo [--session id] [--turns n]`: the files and the conversation of a session go back to
// before its last turn, or its last n turns (default: the latest session in this directory).
// Headless, it does not ask: the command is the request. It prints what it changed, and the
// undo is recorded, so `/redo` in the continued chat (`harness -c`) takes it back.

import { findLatestSession, findSessionByPrefix } from "../../session/session-list.ts";
import { lockAndReadSession } from "../../session/session-lock.ts";
import { SessionRecorder } from "../../session/session-recorder.ts";
import { SessionWriter } from "../../session/session-store.ts";
import { showControlChars } from "../../shared/control-chars.ts";
import { sessionErrorExitCode, sessionsDirFor } from "../../wiring/stored-sessions.ts";
import {
  applyPlan,
  CONVERSATION_ONLY,
  describeLeftAlone,
  listChanges,
  planUndo,
  snapshotsFor,
  UndoError,
} from "../../wiring/undo-redo.ts";
import { parseFlags, UsageError } from "../cli-args.ts";

const USAGE = `Usage: harness undo [--session id] [--turns n]
  --session <id>   the session (an id or a unique prefix; default: the latest one in this directory)
  --turns <n>      how many of its last turns to take back (default 1)
The session's files go back to how they were before those turns, and the turns leave its
conversation, in the files those turns changed: a file changed again after them (by you, an
editor, another program) is left as it is, and named. What changed is printed; /redo in the
continued chat (harness -r <id>) reverses it.
`;

/** The flags `harness undo` takes (test/cli/cli-help-flags.test.ts: each one is in its help). */
export const UNDO_FLAGS = ["session", "turns", "help"] as const;

export async function run(argv: string[]): Promise<number> {
  let flags;
  try {
    flags = parseFlags(argv, UNDO_FLAGS).flags;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`harness: ${showControlChars(error.message)}\n${USAGE}`);
    return 2;
  }
  if (flags.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const sessionsDir = sessionsDirFor(process.env);
  let session;
  try {
    // Locked while it is undone: an undo written into a session another run is writing would interleave.
    session = lockAndReadSession(
      (flags.session !== undefined
        ? findSessionByPrefix(sessionsDir, flags.session)
        : findLatestSession(sessionsDir, process.cwd(), "undo")
      ).path,
    );
  } catch (error) {
    const code = sessionErrorExitCode(error);
    if (code === undefined) throw error;
    process.stderr.write(`harness: ${showControlChars((error as Error).message)}\n`);
    return code;
  }
  for (const notice of session.notices) process.stderr.write(`harness: ${showControlChars(notice)}\n`);

  const snapshots = snapshotsFor(process.env, session.cwd, session.header.id);
  const recorder = new SessionRecorder(SessionWriter.resume(session.path, session.header, session.lock));
  try {
    const plan = await planUndo(session, flags.turns ?? 1, snapshots);
    const result = await applyPlan(plan, snapshots, (entry) => recorder.recordUndo(entry));
    const turns = plan.turns === 1 ? "the last turn" : `the last ${plan.turns} turns`;
    const what = !result
      ? CONVERSATION_ONLY
      : result.changes.length === 0
        ? "the conversation; no file differed from then"
        : `files in ${session.cwd}:\n${listChanges(result.changes)}`;
    // File names are the workspace's, and a model's command may have made them: shown, never obeyed.
    const name = (path: string) => showControlChars(path, "");
    process.stdout.write(`undid ${turns} of session ${session.header.id}: ${showControlChars(what)}\n`);
    if (result && result.kept.length > 0)
      process.stdout.write(
        `left as they are (ignored or too large to snapshot before the turn):\n${result.kept.map((path) => `  ${name(path)}`).join("\n")}\n`,
      );
    if (result && result.leftAlone.length > 0)
      process.stdout.write(`${showControlChars(describeLeftAlone(result.leftAlone))}\n`);
    process.stdout.write(`to redo it: harness -r ${session.header.id}, then /redo\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof UndoError)) throw error;
    process.stderr.write(`harness: ${showControlChars(error.message)}\n`);
    return error.isUsage ? 2 : 1;
  } finally {
    recorder.close();
  }
}

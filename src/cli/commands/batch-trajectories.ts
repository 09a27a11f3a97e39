// Writes each batch attempt's trajectory (src/batch/trajectory.ts: mini-swe-agent's `*.traj.json`)
// from its session file and its result. Lives here, not in src/batch, because it reads sessions
// (src/session). The session was redacted where it was written (the one redaction point, as for
// `harness export`); the diff, which comes from git and not from the session, has keys taken out
// here the same way (by shape and by the values of this process's credential variables).
import { existsSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { PriceCall } from "../../batch/harness-child.ts";
import type { TaskResult } from "../../batch/task-result.ts";
import { type RecordedMessage, toTrajectory, trajectoryPathOf } from "../../batch/trajectory.ts";
import { userMessage } from "../../core/messages.ts";
import { readSession, type SessionData } from "../../session/session-reader.ts";
import { makePrivateFolder, PRIVATE_FILE_MODE } from "../../shared/private-files.ts";
import { redactText, secretValuesOf } from "../../shared/redact.ts";
import { VERSION } from "../../shared/version.ts";

/**
 * Saves an attempt's trajectory under `root` (trajectoryPathOf), replaced whole (a rename). A
 * failure to write it is said on stderr and does not fail the task: its result line is the record.
 */
export function trajectorySaverFor(
  root: string,
  env: NodeJS.ProcessEnv,
  price: PriceCall | undefined,
): (result: TaskResult, copy: number | undefined) => void {
  const secrets = secretValuesOf(env);
  return (result, copy) => {
    const path = trajectoryPathOf(root, result.runId, result.id, result.attempt, copy);
    try {
      const trajectory = toTrajectory({
        messages:
          result.sessionPath && existsSync(result.sessionPath) ? recordedMessages(readSession(result.sessionPath)) : [],
        result,
        copy,
        submission: redactText(result.diff ?? "", secrets),
        harnessVersion: VERSION,
        price,
      });
      makePrivateFolder(dirname(path));
      writeFileSync(`${path}.tmp`, `${JSON.stringify(trajectory, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
      renameSync(`${path}.tmp`, path);
    } catch (error) {
      process.stderr.write(`harness: trajectory ${path} not written: ${(error as Error).message}\n`);
    }
  };
}

/** Every message the session recorded, in order (undone and compacted ones too: the whole history). */
function recordedMessages(session: SessionData): RecordedMessage[] {
  return session.entries.flatMap((entry): RecordedMessage[] => {
    if (entry.type === "message") return [{ at: entry.at, message: entry.message }];
    if (entry.type === "compaction") return [{ at: entry.at, message: userMessage(entry.summary), isCompaction: true }];
    return [];
  });
}

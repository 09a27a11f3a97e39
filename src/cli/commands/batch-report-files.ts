// The files `harness batch report --html report.html` writes beside the page, in `report.files/`:
// each task's diff as a page, its session's export where the session is on this machine, and a
// copy of its trajectory where the batch left one beside the results file.
//
// A results file may be someone else's, and its `sessionPath` any path: a session is exported only
// when it is in this machine's session store (found by the result's `sessionId`, never by its
// path) and it is a batch task's session: its header names the same id and, as its folder, the
// result's working copy. So a planted line cannot copy /etc/passwd, nor one of your chats, into a
// page you might publish. A session not found (another machine's, a worker's) gets no link; the
// count is said once on stderr.
import { existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { type RunReport, runLabel } from "../../batch/batch-compare.ts";
import { diffPage, planReportFiles, type TaskLinks } from "../../batch/report-files.ts";
import type { LinksOf } from "../../batch/report-html.ts";
import type { TaskResult } from "../../batch/task-result.ts";
import { trajectoriesOf, trajectoryPathOf } from "../../batch/trajectory.ts";
import { exportHtml } from "../../session/export-html.ts";
import { SESSION_ID_PATTERN } from "../../session/session-id.ts";
import { readSessionHeader } from "../../session/session-list.ts";
import { readSession, SessionReadError } from "../../session/session-reader.ts";
import { sessionPath } from "../../session/session-store.ts";
import { stateDir } from "../../wiring/defaults.ts";

interface WrittenFiles {
  linksOf: LinksOf;
  diffs: number;
  sessions: number;
  /** Tasks with a session id whose session was not exported (not on this machine, or not a batch task's). */
  sessionsMissing: number;
}

/** Writes the files of `htmlPath`'s report into `<name>.files/` beside it; returns the page's links. */
export function writeReportFiles(runs: RunReport[], htmlPath: string): WrittenFiles {
  const folder = `${basename(htmlPath).replace(/\.html?$/i, "")}.files`;
  const base = dirname(htmlPath);
  const sessionsDir = join(stateDir(process.env), "sessions");
  const links = new Map<string, TaskLinks>();
  const written = { diffs: 0, sessions: 0, sessionsMissing: 0 };
  const write = (relative: string, text: string) => {
    const path = join(base, ...relative.split("/"));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  for (const planned of planReportFiles(runs, folder)) {
    const { result, run } = planned;
    const taskLinks: TaskLinks = {};
    if (planned.diff) {
      write(planned.diff, diffPage(result, runLabel(runs[run])));
      taskLinks.diff = planned.diff;
      written.diffs++;
    }
    if (planned.session) {
      const page = sessionPage(sessionsDir, result.sessionId, result.workdir);
      if (page) {
        write(planned.session, page);
        taskLinks.session = planned.session;
        written.sessions++;
      } else written.sessionsMissing++;
    }
    const trajectory = trajectoryCopy(runs[run], result);
    if (trajectory) {
      write(planned.trajectory, trajectory);
      taskLinks.trajectory = planned.trajectory;
    }
    links.set(`${run}\n${result.id}`, taskLinks);
  }
  return { ...written, linksOf: (run, id) => links.get(`${run}\n${id}`) };
}

/** Longest trajectory copied into a report (a conversation of a few hundred calls is a few MB). */
const MAX_TRAJECTORY_BYTES = 64 * 1024 * 1024;

/**
 * The trajectory the batch wrote for the result's attempt (the picked one of a best-of-N task),
 * found by its name under the results file's own `.trajectories` folder, never by a path the line
 * names: copied only when it is a plain file (not a link) and a trajectory of that task.
 */
function trajectoryCopy(run: RunReport, result: TaskResult): string | undefined {
  const copy = result.picked && result.picked > 1 ? result.picked : undefined;
  const path = trajectoryPathOf(trajectoriesOf(run.file), run.runId, result.id, result.attempt, copy);
  try {
    const stat = lstatSync(path);
    if (!stat.isFile() || stat.size > MAX_TRAJECTORY_BYTES) return undefined;
    const text = readFileSync(path, "utf8");
    const value = JSON.parse(text) as { trajectory_format?: unknown; instance_id?: unknown };
    return typeof value.trajectory_format === "string" && value.instance_id === result.id ? text : undefined;
  } catch {
    return undefined; // none was written (an older batch, a worker's machine), or not one of ours
  }
}

/** The export of a batch task's session, if it is this machine's (see the header comment) and readable. */
function sessionPage(sessionsDir: string, id: string | null, workdir: string | null): string | undefined {
  if (!id || !workdir || !SESSION_ID_PATTERN.test(id)) return undefined;
  const path = sessionPath(sessionsDir, id);
  if (!existsSync(path)) return undefined;
  const header = readSessionHeader(path);
  if (header?.id !== id || resolve(header.cwd) !== resolve(workdir)) return undefined;
  try {
    return exportHtml(readSession(path));
  } catch (error) {
    if (error instanceof SessionReadError) return undefined;
    throw error;
  }
}

// The files `harness batch report --html report.html` writes beside the page, in `report.files/`:
// each task's diff as a page, and its session's export where the session is on this machine.
//
// A results file may be someone else's, and its `sessionPath` any path: a session is exported only
// when it is in this machine's session store (found by the result's `sessionId`, never by its
// path) and it is a batch task's session: its header names the same id and, as its folder, the
// result's working copy. So a planted line cannot copy /etc/passwd, nor one of your chats, into a
// page you might publish. A session not found (another machine's, a worker's) gets no link; the
// count is said once on stderr.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { type RunReport, runLabel } from "../../batch/batch-compare.ts";
import { diffPage, planReportFiles, type TaskLinks } from "../../batch/report-files.ts";
import type { LinksOf } from "../../batch/report-html.ts";
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
    links.set(`${run}\n${result.id}`, taskLinks);
  }
  return { ...written, linksOf: (run, id) => links.get(`${run}\n${id}`) };
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

// What the report's page links to, written beside it in `<report>.files/`: each task's diff (a
// page of its own, escaped and coloured) and its session's export. Names are made from the run's
// number and a task's place and id with every character but [A-Za-z0-9_-] replaced, so an id
// (someone else's text) can neither leave the folder nor collide with another task's file.
import { type Html, html, pagePolicy } from "../shared/html.ts";
import type { RunReport } from "./batch-compare.ts";
import type { TaskResult } from "./task-result.ts";

/** A task's files, as links relative to the report's own folder. */
export interface TaskLinks {
  diff?: string;
  session?: string;
  trajectory?: string;
}

/** The files of a task's result in run `run` (0-based): where its diff and its session export go. */
interface PlannedFiles {
  run: number;
  result: TaskResult;
  /** Relative to the report's folder, with `/` between parts (a URL path as much as a file path). */
  diff?: string;
  session?: string;
  /** Where a copy of its trajectory goes (trajectory.ts), when the batch left one beside its results. */
  trajectory: string;
}

/** Where each task's files go, under `folder` (a name beside the report, such as `report.files`). */
export function planReportFiles(runs: RunReport[], folder: string): PlannedFiles[] {
  return runs.flatMap((run, runIndex) =>
    run.results.map((result, index) => {
      const stem = `${folder}/run-${runIndex + 1}/${index + 1}-${result.id.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 60)}`;
      return {
        run: runIndex,
        result,
        ...(result.diff ? { diff: `${stem}.diff.html` } : {}),
        ...(result.sessionId ? { session: `${stem}.session.html` } : {}),
        trajectory: `${stem}.traj.json`,
      };
    }),
  );
}

/** A link's target as an href: each path part percent-encoded (a folder name may hold `#` or `?`). */
function hrefOf(relativePath: string): string {
  return relativePath.split("/").map(encodeURIComponent).join("/");
}

/** A task's diff as a page: every line escaped, added and removed lines coloured; nothing runs. */
export function diffPage(result: TaskResult, runLabel: string): string {
  const lines = (result.diff ?? "").split("\n").map((line) => html`<span class="${lineClass(line)}">${line}</span>\n`);
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${pagePolicy([])}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>diff of ${result.id}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
pre { font: 13px/1.45 ui-monospace, Menlo, Consolas, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
.add { color: #1b5e20; background: #e8f5e9; } .del { color: #b71c1c; background: #ffebee; } .hunk { color: #6a1b9a; } .file { font-weight: bold; }
</style></head>
<body><h1>diff of ${result.id}</h1><p>${runLabel} · ${result.status}</p>
<pre>${lines}</pre></body></html>
`.markup;
}

function lineClass(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff ")) return "file";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  return line.startsWith("-") ? "del" : "ctx";
}

/** The links cell of a task in one run: its diff, its session and its trajectory, where there are files for them. */
export function linksCell(links: TaskLinks | undefined): Html {
  const parts = [
    links?.diff ? html`<a href="${hrefOf(links.diff)}">diff</a>` : "",
    links?.session ? html`<a href="${hrefOf(links.session)}">session</a>` : "",
    links?.trajectory ? html`<a href="${hrefOf(links.trajectory)}">trajectory</a>` : "",
  ].filter((part) => part !== "");
  return html`<td class="files">${parts.length === 0 ? "–" : parts.map((part, index) => (index === 0 ? part : html` · ${part}`))}</td>`;
}

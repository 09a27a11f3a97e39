// What /lsp shows: each language server of the session (started on the first file it serves), its
// state, and the errors and warnings it gave for the files harness showed it, a few per file.
import { countOf, cutWithEllipsis } from "../shared/helpers.ts";

/** A server as /lsp sees it (src/lsp's ServerStatus has this shape; ui does not import lsp). */
export interface LanguageServerView {
  name: string;
  command: string;
  state: string;
  problem?: string;
  restarts: number;
  files: Array<{
    file: string;
    diagnostics: Array<{ severity?: number; message: string; range: { start: { line: number } } }>;
  }>;
}

/** Files listed per server, and problems per file. */
const MAX_FILES = 20;
const MAX_PER_FILE = 3;

export function languageServersText(servers: readonly LanguageServerView[]): string {
  if (servers.length === 0)
    return "no language server started in this session: one starts on the first file it serves (docs/lsp.md)";
  return servers.flatMap(serverLines).join("\n");
}

function serverLines(server: LanguageServerView): string[] {
  const restarted = server.restarts > 0 ? `, restarted ${countOf(server.restarts, "time")}` : "";
  const problem = server.problem ? `: ${server.problem}` : "";
  const lines = [`${server.name}  ${server.state}${restarted}  ${server.command}${problem}`];
  const files = server.files
    .map((entry) => ({ ...entry, problems: entry.diagnostics.filter((d) => (d.severity ?? 1) <= 2) }))
    .filter((entry) => entry.problems.length > 0);
  if (files.length === 0) lines.push("  no errors or warnings in the files it checked");
  for (const entry of files.slice(0, MAX_FILES)) {
    const errors = entry.problems.filter((d) => (d.severity ?? 1) === 1).length;
    lines.push(`  ${entry.file}: ${countOf(errors, "error")}, ${countOf(entry.problems.length - errors, "warning")}`);
    for (const d of entry.problems.slice(0, MAX_PER_FILE))
      lines.push(`    line ${d.range.start.line + 1}: ${cutWithEllipsis(d.message.replace(/\s+/g, " ").trim(), 160)}`);
  }
  if (files.length > MAX_FILES) lines.push(`  ... and ${files.length - MAX_FILES} more files`);
  return lines;
}

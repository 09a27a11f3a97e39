// What the model reads after an edit (or a command that changed the file): the errors (then
// warnings) it brought, set apart from those the file already had, each with its line, a few at most. Information and hints are left
// out; an edit that leaves no error or warning adds nothing.
import { countOf, cutWithEllipsis } from "../shared/helpers.ts";
import type { EditDiagnostics } from "./language-servers.ts";
import type { Diagnostic } from "./lsp-messages.ts";

/** At most this many of the new problems, and of the ones already there, are listed. */
const MAX_NEW_LISTED = 5;
const MAX_EXISTING_LISTED = 3;
/** A message is cut here (a TypeScript type error can run to pages). */
const MAX_MESSAGE_CHARS = 300;
/** The chat's notice is one short line. */
const MAX_NOTICE_CHARS = 160;

/** The note appended to a tool result for `shown` (the file as the model named it); "" when there is nothing to say. */
export function diagnosticsNote(shown: string, result: EditDiagnostics, cause: "edit" | "command" = "edit"): string {
  const fresh = problemsOf(result.fresh);
  const existing = problemsOf(result.existing);
  if (fresh.length === 0 && existing.length === 0) return "";
  const lines = [`\n\n${result.server} diagnostics for ${shown}:`];
  const heading = result.unseen ? `after this ${cause} (not checked before it)` : `new with this ${cause}`;
  if (fresh.length > 0) lines.push(`${heading}: ${tally(fresh)}`, ...listed(fresh, MAX_NEW_LISTED));
  if (existing.length > 0)
    lines.push(`already there before it: ${tally(existing)}`, ...listed(existing, MAX_EXISTING_LISTED));
  return lines.join("\n");
}

/** The chat's line when an edit brought new errors (`lsp: src/a.ts: 1 new error: line 2: ...`); "" when it brought none. */
export function newErrorsNotice(shown: string, result: EditDiagnostics): string {
  const errors = problemsOf(result.fresh).filter((d) => (d.severity ?? 1) === 1);
  if (errors.length === 0) return "";
  const first = `line ${errors[0].range.start.line + 1}: ${errors[0].message.replace(/\s+/g, " ").trim()}`;
  const counted = countOf(errors.length, result.unseen ? "error" : "new error");
  return cutWithEllipsis(`lsp: ${shown}: ${counted}: ${first}`, MAX_NOTICE_CHARS);
}

/** Errors and warnings, errors first, each group in line order. */
function problemsOf(diagnostics: Diagnostic[]): Diagnostic[] {
  return diagnostics
    .filter((d) => (d.severity ?? 1) <= 2)
    .sort((a, b) => (a.severity ?? 1) - (b.severity ?? 1) || a.range.start.line - b.range.start.line);
}

function listed(problems: Diagnostic[], max: number): string[] {
  const lines = problems.slice(0, max).map((d) => {
    const kind = (d.severity ?? 1) === 1 ? "error" : "warning";
    const message = cutWithEllipsis(d.message.replace(/\s+/g, " ").trim(), MAX_MESSAGE_CHARS);
    return `  line ${d.range.start.line + 1}: ${kind}: ${message}`;
  });
  if (problems.length > max) lines.push(`  ... and ${problems.length - max} more`);
  return lines;
}

function tally(problems: Diagnostic[]): string {
  const errors = problems.filter((d) => (d.severity ?? 1) === 1).length;
  const warnings = problems.length - errors;
  return [errors > 0 ? countOf(errors, "error") : "", warnings > 0 ? countOf(warnings, "warning") : ""]
    .filter(Boolean)
    .join(", ");
}

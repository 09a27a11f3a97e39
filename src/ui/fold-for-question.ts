// What a question shows of a command (or any text a model or a repository wrote): folded so it
// can neither push the question's own line off the screen nor hide its dangerous part beyond the
// right edge. Runs of spaces and of blank lines are shown as counts (`rm -rf ~` followed by
// 4,000 spaces, or 200 empty lines, and then a harmless `echo hi`); a line too long for a few
// rows keeps its start and end with the count of what is left out; past MAX_SHOWN_LINES the
// middle lines are counted, not shown. Every fold says how much it hides.

/** Lines of a command a question shows at most (the rest are counted). */
const MAX_SHOWN_LINES = 12;
/** Terminal rows one shown line may take at most. */
const MAX_ROWS_PER_LINE = 3;
/** Four or more spaces or tabs in a row: shown as their count. */
const SPACE_RUN = /[ \t]{4,}/g;

/** The text as a question shows it on a terminal `columns` wide. */
export function foldForQuestion(text: string, columns: number, maxLines = MAX_SHOWN_LINES): string {
  const spaced = text.replace(SPACE_RUN, (run) => ` ⟨${run.length} spaces⟩ `);
  const lines = foldLongLines(collapseBlankLines(spaced.split("\n")), Math.max(40, columns) * MAX_ROWS_PER_LINE);
  if (lines.length <= maxLines) return lines.join("\n");
  const head = Math.ceil((maxLines - 1) / 2);
  const tail = maxLines - 1 - head;
  const hidden = lines.length - head - tail;
  return [...lines.slice(0, head), `⟨${hidden} more lines not shown⟩`, ...lines.slice(-tail)].join("\n");
}

function collapseBlankLines(lines: string[]): string[] {
  const kept: string[] = [];
  for (let at = 0; at < lines.length; ) {
    let end = at;
    while (end < lines.length && lines[end].trim() === "") end++;
    if (end - at > 1) kept.push(`⟨${end - at} blank lines⟩`);
    else if (end > at) kept.push("");
    else kept.push(lines[end++]);
    at = end;
  }
  return kept;
}

function foldLongLines(lines: string[], width: number): string[] {
  const keep = Math.floor(width / 2) - 20;
  return lines.map((line) =>
    line.length <= width
      ? line
      : `${line.slice(0, keep)} ⟨${line.length - 2 * keep} characters not shown⟩ ${line.slice(-keep)}`,
  );
}

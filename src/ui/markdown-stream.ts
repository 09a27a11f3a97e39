// Markdown for the terminal, rendered as it streams. Only completed lines are written, each
// once, so nothing already on screen is redrawn (no flicker, the scrollback stays as written).
// Held back: the current incomplete line, and a table until its last row (columns need every
// row to align). Fenced code is highlighted line by line.
import { highlightLine, languageFor, type HighlightState } from "./highlight.ts";
import { visibleWidth } from "./text-width.ts";

/** Horizontal rules are no wider than this, however wide the terminal. */
const MAX_RULE_WIDTH = 80;
/** Rows buffered for one table; past this the table is written unaligned rather than held. */
const MAX_TABLE_ROWS = 200;

export interface MarkdownStreamOptions {
  /** Styled output; false passes the text through exactly as it came. */
  isStyled: boolean;
  /** Terminal columns, read at each use so a resize applies from the next line on. */
  columns: () => number;
}

const sgr = (open: string, close: string) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;
const STYLE = {
  bold: sgr("1", "22"),
  dim: sgr("2", "22"),
  italic: sgr("3", "23"),
  underline: sgr("4", "24"),
  strike: sgr("9", "29"),
  code: sgr("36", "39"),
  heading: sgr("1;4", "22;24"),
};

interface OpenFence {
  marker: string;
  language: ReturnType<typeof languageFor>;
  state: HighlightState;
}

/** Turns streamed Markdown into terminal lines; `push` deltas, then `flush` at the end of a reply. */
export class MarkdownStream {
  private pending = "";
  private fence: OpenFence | undefined;
  private table: string[] = [];

  constructor(private readonly options: MarkdownStreamOptions) {}

  /** Adds a delta; returns the rendered completed lines (possibly nothing). */
  push(text: string): string {
    if (!this.options.isStyled) return text;
    this.pending += text;
    let out = "";
    for (let newline = this.pending.indexOf("\n"); newline >= 0; newline = this.pending.indexOf("\n")) {
      out += this.renderLine(this.pending.slice(0, newline).replace(/\r$/, ""));
      this.pending = this.pending.slice(newline + 1);
    }
    return out;
  }

  /** Ends the reply: renders whatever was held back and resets, ready for the next reply. */
  flush(): string {
    if (!this.options.isStyled) return "";
    let out = this.pending ? this.renderLine(this.pending.replace(/\r$/, "")) : "";
    out += this.endTable();
    this.pending = "";
    this.fence = undefined;
    return out;
  }

  private renderLine(line: string): string {
    if (this.fence) return this.renderCode(line, this.fence);
    if (this.table.length > 0) {
      if (isTableRow(line) && this.table.length < MAX_TABLE_ROWS) {
        this.table.push(line);
        return "";
      }
      return this.endTable() + this.renderLine(line);
    }
    const fence = /^\s*(`{3,}|~{3,})\s*([^`\s]*)/.exec(line);
    if (fence) {
      this.fence = { marker: fence[1], language: languageFor(fence[2]), state: {} };
      return `${STYLE.dim(line)}\n`;
    }
    if (isTableRow(line)) {
      this.table.push(line);
      return "";
    }
    return `${this.renderBlockLine(line)}\n`;
  }

  private renderCode(line: string, fence: OpenFence): string {
    const close = /^\s*(`{3,}|~{3,})\s*$/.exec(line);
    if (close && close[1][0] === fence.marker[0] && close[1].length >= fence.marker.length) {
      this.fence = undefined;
      return `${STYLE.dim(line)}\n`;
    }
    return `${fence.language ? highlightLine(line, fence.language, fence.state) : line}\n`;
  }

  private renderBlockLine(line: string): string {
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)(\s+#+)?\s*$/.exec(line);
    if (heading)
      return heading[1].length === 1 ? STYLE.heading(renderInline(heading[2])) : STYLE.bold(renderInline(heading[2]));
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line))
      return STYLE.dim("─".repeat(Math.max(3, Math.min(this.options.columns(), MAX_RULE_WIDTH))));
    const quote = /^(\s*)>\s?(.*)$/.exec(line);
    if (quote) return `${quote[1]}${STYLE.dim("│")} ${STYLE.italic(renderInline(quote[2]))}`;
    const bullet = /^(\s*)[-*+]\s+(\[[ xX]\]\s+)?(.*)$/.exec(line);
    if (bullet) {
      const mark = bullet[2] ? (bullet[2].trim() === "[ ]" ? "☐" : "☑") : "•";
      return `${bullet[1]}${mark} ${renderInline(bullet[3])}`;
    }
    const numbered = /^(\s*)(\d+[.)])\s+(.*)$/.exec(line);
    if (numbered) return `${numbered[1]}${STYLE.bold(numbered[2])} ${renderInline(numbered[3])}`;
    return renderInline(line);
  }

  /** The buffered table, aligned; unaligned rows when it is not a table or does not fit. */
  private endTable(): string {
    const lines = this.table;
    this.table = [];
    if (lines.length === 0) return "";
    if (lines.length < 2 || !isSeparatorRow(lines[1])) return lines.map((line) => `${renderInline(line)}\n`).join("");
    const alignments = splitCells(lines[1]).map((cell) =>
      /^:-+:$/.test(cell) ? "center" : /-:$/.test(cell) ? "right" : "left",
    );
    const rows = [lines[0], ...lines.slice(2)].map((line) => splitCells(line).map(renderInline));
    const count = Math.max(alignments.length, ...rows.map((row) => row.length));
    const widths = Array.from({ length: count }, (_, column) =>
      Math.max(1, ...rows.map((row) => visibleWidth(row[column] ?? ""))),
    );
    const total = widths.reduce((sum, width) => sum + width + 3, 1);
    if (total > this.options.columns()) return rows.map((row) => `${row.join(STYLE.dim(" │ "))}\n`).join("");
    const bar = STYLE.dim("│");
    const format = (row: string[], isHeader: boolean) =>
      `${bar} ${widths.map((width, column) => pad(isHeader ? STYLE.bold(row[column] ?? "") : (row[column] ?? ""), width, alignments[column] ?? "left")).join(` ${bar} `)} ${bar}\n`;
    const separator = STYLE.dim(`├${widths.map((width) => "─".repeat(width + 2)).join("┼")}┤`);
    return [format(rows[0], true), `${separator}\n`, ...rows.slice(1).map((row) => format(row, false))].join("");
  }
}

/** Inline Markdown: `code`, **bold**, *italic*, ~~strike~~, [links](url). Code spans are left as written. */
export function renderInline(text: string): string {
  return text
    .split(/(`+[^`]+`+)/)
    .map((part, index) => (index % 2 === 1 ? STYLE.code(part.replace(/^`+|`+$/g, "")) : renderEmphasis(part)))
    .join("");
}

function renderEmphasis(text: string): string {
  // Links first: the later styles add escape sequences, whose `[` a link pattern would misread.
  return text
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, label: string, url: string) =>
      label === url ? STYLE.underline(url) : `${STYLE.underline(label)} ${STYLE.dim(`(${url})`)}`,
    )
    .replace(/\*\*(?=\S)(.+?)\*\*|(?<!\w)__(?=\S)(.+?)__(?!\w)/g, (_, a, b) => STYLE.bold(a ?? b))
    .replace(/(?<![*\w])\*(?=[^\s*])([^*]+?)\*(?!\*)|(?<!\w)_(?=[^\s_])([^_]+?)_(?!\w)/g, (_, a, b) =>
      STYLE.italic(a ?? b),
    )
    .replace(/~~(?=\S)(.+?)~~/g, (_, a) => STYLE.strike(a));
}

function isTableRow(line: string): boolean {
  return /^\s*\|.*\|\s*$/.test(line);
}

function isSeparatorRow(line: string): boolean {
  const cells = splitCells(line);
  return cells.length > 0 && cells.every((cell) => /^:?-+:?$/.test(cell));
}

/** A row's cells: split on `|` outside code spans and not escaped, outer pipes dropped. */
function splitCells(line: string): string[] {
  const cells: string[] = [];
  let cell = "";
  let inCode = false;
  const body = line.trim().replace(/^\|/, "").replace(/\|$/, "");
  for (let i = 0; i < body.length; i++) {
    const char = body[i];
    if (char === "\\" && body[i + 1] === "|") {
      cell += "|";
      i++;
    } else if (char === "`") {
      inCode = !inCode;
      cell += char;
    } else if (char === "|" && !inCode) {
      cells.push(cell.trim());
      cell = "";
    } else cell += char;
  }
  cells.push(cell.trim());
  return cells;
}

function pad(text: string, width: number, alignment: string): string {
  const space = width - visibleWidth(text);
  if (alignment === "right") return " ".repeat(space) + text;
  if (alignment === "center") return " ".repeat(Math.floor(space / 2)) + text + " ".repeat(Math.ceil(space / 2));
  return text + " ".repeat(space);
}

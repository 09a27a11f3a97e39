// Markdown for the terminal, rendered as it streams. What is written is never redrawn (no
// flicker, the scrollback stays as written), so text is held back only while what follows could
// change how it looks: prose (paragraphs, list items, quotes) is written a word at a time as it
// streams and wraps at word boundaries (prose-line.ts); a line whose first word could still make
// it a heading, rule, code fence or table row is held until that is known, a heading or a code
// line until its end (its style or highlighting needs the whole line), and a table until its
// last row (columns need every row to align). Code is never re-wrapped.

import { visibleWidth } from "../text-width.ts";
import { type HighlightState, highlightLine, languageFor } from "./highlight.ts";
import { renderInline, STYLE } from "./markdown-inline.ts";
import { type ProseLayout, ProseLine } from "./prose-line.ts";

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

interface OpenFence {
  marker: string;
  language: ReturnType<typeof languageFor>;
  state: HighlightState;
}

/** Turns streamed Markdown into terminal lines; `push` deltas, then `flush` at the end of a reply. */
export class MarkdownStream {
  /** The current line as far as it has come, while it is held whole. */
  private pending = "";
  /** The current line once it is known to be prose: it takes the rest of the line. */
  private prose: ProseLine | undefined;
  private fence: OpenFence | undefined;
  private table: string[] = [];

  constructor(private readonly options: MarkdownStreamOptions) {}

  /** Adds a delta; returns what can be drawn now (possibly nothing). */
  push(text: string): string {
    if (!this.options.isStyled) return text;
    let out = "";
    let rest = text;
    for (let newline = rest.indexOf("\n"); newline >= 0; newline = rest.indexOf("\n")) {
      out += this.endLine(rest.slice(0, newline));
      rest = rest.slice(newline + 1);
    }
    return out + this.continueLine(rest);
  }

  /** Ends the reply: renders whatever was held back and resets, ready for the next reply. */
  flush(): string {
    if (!this.options.isStyled) return "";
    let out = this.prose || this.pending ? this.endLine("") : "";
    out += this.endTable();
    this.fence = undefined;
    return out;
  }

  /** The current line's last part came (up to its newline): the whole line is drawn. */
  private endLine(tail: string): string {
    if (this.prose) {
      const out = this.prose.push(tail) + this.prose.end();
      this.prose = undefined;
      return out;
    }
    const line = (this.pending + tail).replace(/\r$/, "");
    this.pending = "";
    return this.renderLine(line);
  }

  /** Part of a line came: once the line is known to be prose, its finished words are drawn. */
  private continueLine(text: string): string {
    if (this.prose) return this.prose.push(text);
    this.pending += text;
    if (this.fence || this.table.length > 0 || !isKnownProse(this.pending)) return "";
    const { layout, text: body } = proseOf(this.pending);
    this.prose = new ProseLine(layout, this.options.columns);
    this.pending = "";
    return this.prose.push(body);
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
    return this.renderBlockLine(line);
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
      return `${heading[1].length === 1 ? STYLE.heading(renderInline(heading[2])) : STYLE.bold(renderInline(heading[2]))}\n`;
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line))
      return `${STYLE.dim("─".repeat(Math.max(3, Math.min(this.options.columns(), MAX_RULE_WIDTH))))}\n`;
    const { layout, text } = proseOf(line);
    const prose = new ProseLine(layout, this.options.columns);
    return prose.push(text) + prose.end();
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

/**
 * Whether the start of a line already shows it is prose whatever follows: its first word is
 * complete and cannot begin a heading, rule, code fence or table row, nor a list item's `[x]`.
 */
function isKnownProse(start: string): boolean {
  if (!/^\s*\S+\s/.test(start)) return false;
  if (/^\s*(`{3,}|~{3,}|\|)|^\s{0,3}#/.test(start)) return false;
  if (/^\s{0,3}([-*_])(\s*\1)*\s*$/.test(start)) return false; // `- -` may become the rule `- - -`
  const item = /^\s*[-*+]\s+(.*)$/s.exec(start);
  if (!item) return true;
  // A list item's text decides whether it starts with a checkbox: `[x] ` is one, `[x]y` or `[link` not.
  const text = item[1];
  return text !== "" && (!text.startsWith("[") || /^\[[ xX]\]\s|^\[[ xX]\]\S|^\[(?![ xX]\]).{2}/s.test(text));
}

/** A prose line's layout (a list item's marker, a quote's bar, the indent) and its text after that. */
function proseOf(line: string): { layout: ProseLayout; text: string } {
  const plain = (first: string) => ({ first, rest: " ".repeat(visibleWidth(first)), style: (text: string) => text });
  const quote = /^(\s*)>\s?(.*)$/s.exec(line);
  if (quote) {
    const bar = `${quote[1]}${STYLE.dim("│")} `;
    return { layout: { first: bar, rest: bar, style: STYLE.italic }, text: quote[2] };
  }
  const bullet = /^(\s*)[-*+]\s+(\[[ xX]\]\s+)?(.*)$/s.exec(line);
  if (bullet) {
    const mark = bullet[2] ? (bullet[2].trim() === "[ ]" ? "☐" : "☑") : "•";
    return { layout: plain(`${bullet[1]}${mark} `), text: bullet[3] };
  }
  const numbered = /^(\s*)(\d+[.)])\s+(.*)$/s.exec(line);
  if (numbered) return { layout: plain(`${numbered[1]}${STYLE.bold(numbered[2])} `), text: numbered[3] };
  const indent = /^\s*/.exec(line)?.[0] ?? "";
  return { layout: plain(indent), text: line.slice(indent.length) };
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

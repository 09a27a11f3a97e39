// A small, safe Markdown to HTML renderer for exported answers. Everything is escaped first;
// only the constructs below become markup: headings, paragraphs, lists, block quotes, rules,
// tables, code fences, inline code, emphasis, strike-through and links (http, https, mailto or
// relative; any other scheme, such as javascript:, is shown as plain text). No raw HTML passes.
import { escapeHtml } from "../shared/helpers.ts";

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?/;
const LIST_ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_DIVIDER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

export function renderMarkdown(markdown: string): string {
  return renderBlocks(markdown.replace(/\r\n?/g, "\n").replace(/\0/g, "").split("\n"));
}

function renderBlocks(lines: string[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === "") {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1];
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i].trim().startsWith(marker) && lines[i].trim().replace(/[`~]/g, "") === ""))
        body.push(lines[i++]);
      i++; // the closing fence (or the end)
      const language = fence[2] ? ` class="language-${escapeHtml(fence[2])}"` : "";
      const code = /^(diff|patch|udiff)$/i.test(fence[2]) ? diffHtml(body.join("\n")) : escapeHtml(body.join("\n"));
      out.push(`<pre><code${language}>${code}</code></pre>`);
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = heading[1].length;
      out.push(`<h${level}>${renderInline(heading[2])}</h${level}>`);
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push("<hr>");
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i])) body.push(lines[i++].replace(QUOTE, ""));
      out.push(`<blockquote>${renderBlocks(body)}</blockquote>`);
      continue;
    }
    if (LIST_ITEM.test(line)) {
      i = renderList(lines, i, out);
      continue;
    }
    if (line.includes("|") && i + 1 < lines.length && TABLE_DIVIDER.test(lines[i + 1]) && lines[i + 1].includes("-")) {
      i = renderTable(lines, i, out);
      continue;
    }
    const paragraph: string[] = [];
    while (i < lines.length && lines[i].trim() !== "" && !startsBlock(lines[i])) paragraph.push(lines[i++].trim());
    out.push(`<p>${paragraph.map(renderInline).join("<br>\n")}</p>`);
  }
  return out.join("\n");
}

function startsBlock(line: string): boolean {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || LIST_ITEM.test(line);
}

/** One list (ordered or not); items may hold indented continuation lines and nested lists. */
function renderList(lines: string[], start: number, out: string[]): number {
  const first = LIST_ITEM.exec(lines[start]) as RegExpExecArray;
  const isOrdered = /\d/.test(first[2]);
  const indent = first[1].length;
  // Where an item's own text starts ("- " 2, "1. " 3): lines indented so far belong to the item.
  const inside = (line: string) =>
    line.slice(Math.min(/^ */.exec(line)?.[0].length ?? 0, indent + first[2].length + 1));
  const items: string[][] = [];
  let i = start;
  while (i < lines.length) {
    const item = LIST_ITEM.exec(lines[i]);
    // An item indented past this list's own (two spaces are enough, as in the terminal) is a nested list's.
    if (item && item[1].length > indent + 1 && items.length > 0) {
      items.at(-1)?.push(inside(lines[i]));
      i++;
      continue;
    }
    if (item && /\d/.test(item[2]) === isOrdered) {
      items.push([item[3]]);
      i++;
      continue;
    }
    if (item) break; // the other kind of list starts
    if (lines[i].trim() === "") {
      const next = lines[i + 1];
      if (next !== undefined && (/^\s{2,}\S/.test(next) || LIST_ITEM.test(next))) {
        items.at(-1)?.push("");
        i++;
        continue;
      }
      break;
    }
    if (/^\s+\S/.test(lines[i])) {
      items.at(-1)?.push(inside(lines[i]));
      i++;
      continue;
    }
    break;
  }
  const tag = isOrdered ? "ol" : "ul";
  const startAttribute =
    isOrdered && Number.parseInt(first[2], 10) !== 1 ? ` start="${Number.parseInt(first[2], 10)}"` : "";
  const rendered = items.map((item) => {
    const html = renderBlocks(item);
    // A one-paragraph item reads better without the <p>.
    const simple = /^<p>([\s\S]*)<\/p>$/.exec(html);
    return `<li>${simple && !simple[1].includes("<p>") ? simple[1] : html}</li>`;
  });
  out.push(`<${tag}${startAttribute}>\n${rendered.join("\n")}\n</${tag}>`);
  return i;
}

function renderTable(lines: string[], start: number, out: string[]): number {
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\|/, "")
      .replace(/\|$/, "")
      .split("|")
      .map((cell) => cell.trim());
  const head = cells(lines[start]);
  const rows: string[][] = [];
  let i = start + 2;
  while (i < lines.length && lines[i].includes("|") && lines[i].trim() !== "") rows.push(cells(lines[i++]));
  const row = (values: string[], tag: string) =>
    `<tr>${values.map((value) => `<${tag}>${renderInline(value)}</${tag}>`).join("")}</tr>`;
  out.push(
    `<table>\n<thead>${row(head, "th")}</thead>\n<tbody>\n${rows.map((r) => row(r, "td")).join("\n")}\n</tbody>\n</table>`,
  );
  return i;
}

/**
 * Inline markup. Code spans and links are cut out first (as placeholders) so emphasis never
 * applies inside them; everything else is escaped before any tag is added.
 */
export function renderInline(text: string): string {
  const held: string[] = [];
  const hold = (html: string) => `\0${held.push(html) - 1}\0`;
  let rest = text.replace(/\0/g, "");
  rest = rest.replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (_, __, code: string) =>
    hold(`<code>${escapeHtml(code.trim() === "" ? code : code.replace(/^ (.*) $/, "$1"))}</code>`),
  );
  // A picture: inline data as the picture itself, any other address as a link saying it is one
  // (the page loads nothing: its Content-Security-Policy forbids it; export-html.ts).
  rest = rest.replace(/!\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"\n]*")?\s*\)/g, (_, alt: string, src: string) =>
    hold(
      /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/.test(src)
        ? `<img class="attached" src="${escapeHtml(src)}" alt="${escapeHtml(alt)}">`
        : isSafeHref(src)
          ? `<a class="image" href="${escapeHtml(src)}" rel="noopener noreferrer">image: ${escapeHtml(alt || src)}</a>`
          : `image: ${escapeHtml(alt)} (${escapeHtml(src)})`,
    ),
  );
  rest = rest.replace(/\[([^\]\n]+)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"\n]*")?\s*\)/g, (_, label: string, href: string) => {
    const inner = renderEmphasis(escapeHtml(label));
    return hold(
      isSafeHref(href)
        ? `<a href="${escapeHtml(href)}" rel="noopener noreferrer">${inner}</a>`
        : `${inner} (${escapeHtml(href)})`,
    );
  });
  rest = rest.replace(/<(https?:\/\/[^\s<>]+)>/g, (_, href: string) =>
    hold(`<a href="${escapeHtml(href)}" rel="noopener noreferrer">${escapeHtml(href)}</a>`),
  );
  const html = renderEmphasis(escapeHtml(rest));
  return html.replace(/\0(\d+)\0/g, (_, index: string) => held[Number(index)]);
}

function renderEmphasis(escaped: string): string {
  return escaped
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^\w])__(?=\S)([\s\S]*?\S)__(?!\w)/g, "$1<strong>$2</strong>")
    .replace(/\*(?=[^\s*])([^*]*?[^\s*])\*/g, "<em>$1</em>")
    .replace(/\*([^\s*])\*/g, "<em>$1</em>")
    .replace(/(^|[^\w])_(?=[^\s_])([^_]*?[^\s_]|[^\s_])_(?!\w)/g, "$1<em>$2</em>")
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, "<del>$1</del>");
}

/** Web links, mail links and relative paths; never script or data URLs. */
function isSafeHref(href: string): boolean {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(href);
  return scheme ? ["http", "https", "mailto"].includes(scheme[1].toLowerCase()) : true;
}

/** A unified diff coloured as the terminal colours it (ui/diff-render.ts): `+` added, `-` removed, `@@` hunks. */
export function diffHtml(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      const kind = /^(\+\+\+|---) /.test(line)
        ? "diff-file"
        : line.startsWith("@@")
          ? "diff-hunk"
          : line.startsWith("+")
            ? "diff-add"
            : line.startsWith("-")
              ? "diff-del"
              : undefined;
      return kind ? `<span class="${kind}">${escapeHtml(line)}</span>` : escapeHtml(line);
    })
    .join("\n");
}

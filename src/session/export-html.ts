// The HTML export of a session: one self-contained page (inline style and script, no fonts,
// images or anything else fetched) that opens in any browser offline. A Content-Security-Policy
// forbids every request, so even an answer quoting a URL cannot make the page load it, and runs
// only SCRIPT, named by its hash. Made with `html`, which escapes every value (src/shared/html.ts).

import type { AssistantMessage, ImagePart, ToolResultMessage } from "../core/messages.ts";
import { assertNever } from "../core/messages.ts";
import { type Html, html, pagePolicy, trustedHtml } from "../shared/html.ts";
import { diffHtml, renderMarkdown } from "./markdown-html.ts";
import type { SessionData } from "./session-reader.ts";
import {
  formatUsage,
  imageDataUrl,
  prettyArguments,
  subagentLabel,
  type TranscriptItem,
  toolCallLabel,
  transcriptItems,
} from "./transcript-items.ts";

const STYLE = `
:root { color-scheme: light dark; --fg: #1d1f21; --bg: #fdfdfc; --muted: #6a6f75; --line: #d9dcdf; --user: #eef4ff; --code: #f2f3f4; --err: #b3261e; }
@media (prefers-color-scheme: dark) { :root { --fg: #e4e6e8; --bg: #16181a; --muted: #9aa0a6; --line: #33373b; --user: #1c2636; --code: #202326; --err: #f28b82; } }
body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; }
main { max-width: 52rem; margin: 0 auto; padding: 1.5rem 1rem 4rem; }
header.session { border-bottom: 1px solid var(--line); margin-bottom: 1.5rem; }
header.session h1 { font-size: 1.3rem; margin: 0 0 .4rem; }
.meta { color: var(--muted); font-size: .85rem; }
.turn { margin: 1.2rem 0; }
.role { font-size: .75rem; font-weight: 600; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin-bottom: .3rem; }
.user .body { background: var(--user); border-radius: 8px; padding: .6rem .8rem; white-space: pre-wrap; }
.note { color: var(--muted); font-style: italic; font-size: .9rem; }
.interrupted { color: var(--err); font-size: .8rem; }
pre { background: var(--code); border-radius: 6px; padding: .6rem .8rem; overflow-x: auto; font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
code { font: .9em ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--code); padding: .1em .3em; border-radius: 4px; }
pre code { background: none; padding: 0; }
details.tool, details.thinking { border: 1px solid var(--line); border-radius: 6px; margin: .5rem 0; padding: .2rem .6rem; }
details.tool > summary, details.thinking > summary { cursor: pointer; color: var(--muted); font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85rem; }
details.tool.error > summary { color: var(--err); }
details.subagent { border-left: 3px solid var(--line); margin: .8rem 0; padding: .2rem 0 .2rem .8rem; }
details.subagent > summary { cursor: pointer; color: var(--muted); font-size: .9rem; }
.label { font-size: .75rem; color: var(--muted); margin-top: .4rem; }
.usage { color: var(--muted); font-size: .75rem; }
table { border-collapse: collapse; } th, td { border: 1px solid var(--line); padding: .2rem .5rem; }
blockquote { border-left: 3px solid var(--line); margin: 0; padding-left: .8rem; color: var(--muted); }
button { font: inherit; font-size: .8rem; }
.diff-add { color: #1a7f37; } .diff-del { color: #cf222e; } .diff-hunk { color: #0a7ea4; } .diff-file { font-weight: 600; }
@media (prefers-color-scheme: dark) { .diff-add { color: #7ee787; } .diff-del { color: #ff7b72; } .diff-hunk { color: #56d4dd; } }
a.image::before { content: "\\1F5BC  "; }
img.attached { display: block; max-width: 100%; margin: .5rem 0; border: 1px solid var(--line); border-radius: 4px; }
`;

/** Opens or closes every tool call at once. */
const SCRIPT = `
document.getElementById("toggle-tools").addEventListener("click", function () {
  var all = document.querySelectorAll("details.tool");
  var open = Array.prototype.some.call(all, function (d) { return !d.open; });
  all.forEach(function (d) { d.open = open; });
});
`;

export function exportHtml(session: SessionData): string {
  const { header } = session;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${pagePolicy([SCRIPT])}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>harness session ${header.id}</title>
<style>${trustedHtml(STYLE)}</style>
</head>
<body>
<main>
<header class="session">
<h1>harness session <code>${header.id}</code></h1>
<div class="meta">${header.cwd} · started ${header.startedAt} · ${header.provider} · ${header.model} · harness ${header.harnessVersion}</div>
<div class="meta">tokens: ${formatUsage(session.usage)}</div>
<p><button type="button" id="toggle-tools">expand / collapse all tool calls</button></p>
</header>
${renderItems(session, 0)}
</main>
<script>${trustedHtml(SCRIPT)}</script>
</body>
</html>
`.markup;
}

/** Pictures inline as data URLs (the page's policy allows `img-src data:` and nothing else). */
function renderImages(images: ImagePart[]): Html[] {
  return images.map(
    (image) => html`<img class="attached" src="${imageDataUrl(image)}" alt="${image.file ?? image.mediaType}">`,
  );
}

/** A session's items; a subagent's session nested, folded, in its place. */
function renderItems(session: SessionData, depth: number): Html[] {
  return transcriptItems(session, depth).map((item, index) => html`${index > 0 ? "\n" : ""}${renderItem(item, depth)}`);
}

function renderItem(item: TranscriptItem, depth: number): Html {
  switch (item.type) {
    case "subagent":
      return item.child
        ? html`<details class="subagent"><summary>${subagentLabel(item)}</summary>${renderItems(item.child, depth + 1)}</details>`
        : html`<p class="note">${subagentLabel(item)}</p>`;
    case "user":
      return html`<section class="turn user"><div class="role">user</div><div class="body">${item.text.trim()}${renderImages(item.images)}</div></section>`;
    case "note":
      return html`<p class="note">${item.text}</p>`;
    case "assistant": {
      const { message } = item;
      const parts = message.content.map(
        (part, index) => html`${index > 0 ? "\n" : ""}${renderPart(part, item.results)}`,
      );
      const interrupted =
        message.stopReason === "aborted" ? html`<div class="interrupted">reply interrupted</div>` : "";
      const usage = message.usage ? html`<div class="usage">tokens: ${formatUsage(message.usage)}</div>` : "";
      return html`<section class="turn assistant"><div class="role">assistant${message.model ? ` · ${message.model}` : ""}</div>${parts}${interrupted}${usage}</section>`;
    }
  }
}

function renderPart(part: AssistantMessage["content"][number], results: Map<string, ToolResultMessage>): Html {
  switch (part.type) {
    case "text":
      // renderMarkdown escapes the text itself and makes only its own few tags (markdown-html.ts).
      return html`<div class="answer">${trustedHtml(renderMarkdown(part.text))}</div>`;
    case "thinking":
      return part.text.trim()
        ? html`<details class="thinking"><summary>thinking</summary><pre>${part.text}</pre></details>`
        : html``;
    case "tool_call": {
      const result = results.get(part.id);
      const output = result
        ? html`<div class="label">${result.isError ? "error" : "output"}</div><pre class="output">${outputHtml(result.content)}</pre>${renderImages(result.images ?? [])}`
        : "";
      return html`<details class="tool${result?.isError ? " error" : ""}" data-call-id="${part.id}"><summary>${toolCallLabel(part)}</summary><div class="label">arguments</div><pre class="arguments">${prettyArguments(part)}</pre>${output}</details>`;
    }
    default:
      return assertNever(part);
  }
}

/** A tool's output; one that is a unified diff (an edit's) coloured as the terminal shows it. */
function outputHtml(content: string): Html | string {
  return /^@@ -\d+(,\d+)? \+\d+(,\d+)? @@/m.test(content) ? trustedHtml(diffHtml(content)) : content;
}

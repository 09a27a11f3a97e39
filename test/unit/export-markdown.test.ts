// The HTML export's Markdown (issue 50: "the export looks like the terminal"): nested lists stay
// nested at the terminal's two-space indent, pictures are pictures (inline data) or links that
// say they are, diffs are coloured as the terminal colours them, and a hostile reply renders
// inert. DOM-free: the HTML is checked as text, every tag in it accounted for.
import assert from "node:assert/strict";
import { test } from "node:test";
import { diffHtml, renderMarkdown } from "../../src/session/markdown-html.ts";

const PNG = "data:image/png;base64,iVBORw0KGgo=";

test("export Markdown: nested lists, pictures, coloured diff fences", () => {
  const html = renderMarkdown(
    [
      "- fruit",
      "  - apple",
      "    - green",
      "  - pear",
      "- nuts",
      "",
      `![a chart](${PNG}) and ![remote](https://example.com/x.png) and ![bad](javascript:alert(1))`,
      "",
      "```diff",
      "--- a/x.ts",
      "+++ b/x.ts",
      "@@ -1,2 +1,2 @@",
      " same",
      "-old <b>",
      "+new",
      "```",
    ].join("\n"),
  );
  const nested =
    "<ul>\n<li><p>fruit</p>\n<ul>\n<li><p>apple</p>\n<ul>\n<li>green</li>\n</ul></li>\n<li>pear</li>\n</ul></li>\n<li>nuts</li>\n</ul>";
  assert.ok(html.startsWith(nested), html);

  assert.ok(html.includes(`<img class="attached" src="${PNG}" alt="a chart">`));
  assert.ok(
    html.includes('<a class="image" href="https://example.com/x.png" rel="noopener noreferrer">image: remote</a>'),
  );
  assert.ok(html.includes("image: bad (javascript:alert(1))"), "a script address is text");
  assert.ok(html.includes('<span class="diff-del">-old &lt;b&gt;</span>'));
  assert.ok(html.includes('<span class="diff-add">+new</span>'));
  assert.ok(html.includes('<span class="diff-hunk">@@ -1,2 +1,2 @@</span>'));
  assert.ok(html.includes('<span class="diff-file">+++ b/x.ts</span>'));
});

test("export Markdown attack: a reply's <script>, <img onerror> and event handlers render inert", () => {
  const reply = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(2)">',
    '![x" onerror="alert(3)](data:image/png;base64,AAAA" onerror="alert(4))',
    '[click](javascript:alert(5)) <a href="javascript:alert(6)">a</a>',
    "```diff",
    "+<script>alert(7)</script>",
    "```",
    "- item <svg onload=alert(8)>",
  ].join("\n");
  const html = renderMarkdown(reply) + diffHtml("+<img src=x onerror=alert(9)>");
  // Every tag left is one the renderer makes, and no attribute runs anything.
  const tags = html.match(/<[a-z][^>]*>/gi) ?? [];
  for (const tag of tags) {
    assert.match(tag, /^<(p|br|ul|ol|li|pre|code|span|a|img|em|strong|del)[\s>]/, `unexpected tag ${tag}`);
    assert.doesNotMatch(tag, /\son\w+=/i, `event handler in ${tag}`);
    assert.doesNotMatch(tag, /javascript:/i, `script address in ${tag}`);
  }
  assert.doesNotMatch(html, /<script|<svg|<img src=x/i);
  assert.ok(html.includes("&lt;script&gt;alert(1)&lt;/script&gt;"), "the text is still there, shown");
});

// The streaming Markdown renderer: output is the same however the text is cut into deltas,
// and each construct renders as a person expects on a terminal.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MarkdownStream } from "../../src/ui/render/markdown-stream.ts";
import { stripAnsi } from "../../src/ui/text-width.ts";

const SAMPLE = [
  "# Title with `code`",
  "",
  "Some **bold**, *italic*, _under_ and ~~gone~~ text with snake_case_names and a [link](https://example.com).",
  "",
  "## Steps",
  "- first item",
  "  - nested item",
  "- [x] done task",
  "1. numbered",
  "> a quote",
  "",
  "---",
  "```python",
  "def greet(name):",
  '    """Say hello.',
  '    Twice."""',
  "    return f'hi {name}' # comment",
  "```",
  "",
  "| Name | Score | Note |",
  "|:-----|------:|:----:|",
  "| Alice | 7 | ok |",
  "| Bob | 12345 | `a|b` |",
  "",
  "~~~",
  "plain | not a table",
  "~~~",
  "| not | a table",
  "tail without newline",
].join("\n");

function renderWhole(text: string, columns = 100): string {
  const stream = new MarkdownStream({ isStyled: true, columns: () => columns });
  return stream.push(text) + stream.flush();
}

/** A deterministic pseudo-random generator, so a failure replays the same way. */
function* chunkSizes(seed: number): Generator<number> {
  let state = seed;
  while (true) {
    state = (state * 48271) % 2147483647;
    yield 1 + (state % 17);
  }
}

test("any split into deltas renders exactly like the whole text, wrapped or not", () => {
  for (let seed = 1; seed <= 50; seed++) {
    const columns = seed % 2 === 0 ? 100 : 24;
    const whole = renderWhole(SAMPLE, columns);
    const stream = new MarkdownStream({ isStyled: true, columns: () => columns });
    const sizes = chunkSizes(seed);
    let out = "";
    for (let i = 0; i < SAMPLE.length; ) {
      const size = sizes.next().value as number;
      out += stream.push(SAMPLE.slice(i, i + size));
      i += size;
    }
    out += stream.flush();
    assert.equal(out, whole, `seed ${seed}`);
  }
});

test("prose is written a word at a time as it streams; an open construct, a table and a code line wait", () => {
  const stream = new MarkdownStream({ isStyled: true, columns: () => 80 });
  assert.equal(stream.push("Hello **wor"), "Hello", "a finished word is written at once");
  assert.equal(stream.push("ld**"), "", "bold is written once it closes and a space follows");
  assert.equal(stream.push(" and"), " \x1b[1mworld\x1b[22m");
  assert.equal(stream.push(" more"), " and");
  assert.equal(stripAnsi(stream.push("\n| a | b |\n|---|---|\n| 1 | 2 |\n")), " more\n");
  assert.equal(stripAnsi(stream.push("after it\n")), "│ a │ b │\n├───┼───┤\n│ 1 │ 2 │\nafter it\n");
  assert.equal(stream.push("``"), "", "the first word may become a code fence");
  assert.equal(stream.push("`ts\nconst x = 1;"), "\x1b[2m```ts\x1b[22m\n", "a code line waits for its end");
  assert.match(stripAnsi(stream.push("\n```\n# Head")), /^const x = 1;\n```\n$/);
  assert.equal(stream.push("ing two"), "", "a heading waits for its end");
  assert.equal(stripAnsi(stream.push("\n- [")), "Heading two\n");
  assert.equal(stream.push("x"), "", "`- [x` may still be a checkbox");
  assert.equal(stripAnsi(stream.push("] done ")), "☑ done");
  assert.equal(stripAnsi(stream.flush()), "\n");
});

test("prose wraps at word boundaries to the width; list items hang under their text; code is not re-wrapped", () => {
  const text = [
    "The quick brown fox jumps over the lazy dog and `keeps running` far away.",
    "- a list item long enough to need a second row of its own",
    "  12. a nested numbered item that wraps too",
    "> a quoted line long enough to wrap once",
    "```",
    "code that is much longer than twenty-five columns stays one line",
    "```",
    "averyveryverylongwordwiderthantherow fits nowhere",
  ].join("\n");
  assert.deepEqual(stripAnsi(renderWhole(text, 25)).split("\n"), [
    "The quick brown fox jumps",
    "over the lazy dog and",
    "keeps running far away.",
    "• a list item long enough",
    "  to need a second row of",
    "  its own",
    "  12. a nested numbered",
    "      item that wraps too",
    "│ a quoted line long",
    "│ enough to wrap once",
    "```",
    "code that is much longer than twenty-five columns stays one line",
    "```",
    "averyveryverylongwordwiderthantherow",
    "fits nowhere",
    "",
  ]);
});

test("constructs render with their terminal styles and the table's columns align", () => {
  const out = renderWhole(SAMPLE);
  const plain = stripAnsi(out).split("\n");
  assert.equal(plain[0], "Title with code");
  assert.match(out, /\x1b\[1;4mTitle/, "a top heading is bold and underlined");
  assert.match(out, /\x1b\[1mbold\x1b\[22m/);
  assert.match(out, /\x1b\[3mitalic\x1b\[23m/);
  assert.match(out, /\x1b\[9mgone\x1b\[29m/);
  assert.ok(
    plain.includes("Some bold, italic, under and gone text with snake_case_names and a link (https://example.com)."),
  );
  assert.ok(plain.includes("• first item") && plain.includes("  • nested item") && plain.includes("☑ done task"));
  assert.ok(plain.includes("│ a quote"));
  assert.match(out, /\x1b\[35mdef\x1b\[39m greet/, "python keywords are coloured");
  assert.match(
    out,
    /\x1b\[32m"""Say hello\.\x1b\[39m\n\x1b\[32m {4}Twice\."""\x1b\[39m/,
    "a triple-quoted string spans lines",
  );
  assert.match(out, /\x1b\[2m# comment\x1b\[22m/);
  const table = plain.filter((line) => line.startsWith("│") && line.endsWith("│"));
  assert.deepEqual(table, ["│ Name  │ Score │ Note │", "│ Alice │     7 │  ok  │", "│ Bob   │ 12345 │ a|b  │"]);
  assert.ok(plain.includes("plain | not a table"), "a fence keeps its content as written");
  assert.ok(plain.includes("| not | a table"), "a lone pipe line is not a table");
  assert.equal(plain.at(-2), "tail without newline", "the last line is written by flush");
});

test("a table wider than the terminal is written unaligned rather than wrapped", () => {
  const plain = stripAnsi(renderWhole("| a | b |\n|---|---|\n| one long cell | another long cell |\n", 20)).split("\n");
  assert.deepEqual(plain.slice(0, 2), ["a │ b", "one long cell │ another long cell"]);
});

test("without styling the text passes through untouched", () => {
  const stream = new MarkdownStream({ isStyled: false, columns: () => 80 });
  assert.equal(stream.push("# raw **text**\n| a |"), "# raw **text**\n| a |");
  assert.equal(stream.flush(), "");
});

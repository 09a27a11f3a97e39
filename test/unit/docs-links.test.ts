// The manual's links hold: every relative link in README.md, AGENTS.md and docs/*.md names a file
// that exists, and every #anchor a heading of its target page (GitHub's anchors), so a page that is
// split, renamed or re-headed cannot leave a reader at a dead link.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { ROOT } from "../support/helpers.ts";

const PAGES = [
  "README.md",
  "AGENTS.md",
  ...readdirSync(join(ROOT, "docs")).flatMap((name) => (name.endsWith(".md") ? [`docs/${name}`] : [])),
];

/** GitHub's heading anchor (as github-slugger makes it): lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** The lines of a Markdown file outside fenced code blocks, with inline code spans blanked. */
function proseLines(text: string): string[] {
  const lines: string[] = [];
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced) lines.push(line.replace(/`[^`]*`/g, "``"));
  }
  return lines;
}

/** Every anchor a page offers, a repeated heading's with GitHub's -1, -2 suffix. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const anchor = anchorOf(heading[1]);
    const count = seen.get(anchor) ?? 0;
    seen.set(anchor, count + 1);
    anchors.add(count === 0 ? anchor : `${anchor}-${count}`);
  }
  return anchors;
}

/** The relative link targets of a page: `[text](target)`, web and mail addresses left out. */
function linksOf(page: string): string[] {
  const targets: string[] = [];
  for (const line of proseLines(readFileSync(join(ROOT, page), "utf8")))
    for (const match of line.matchAll(/\]\(([^)\s]+)\)/g))
      if (!/^[a-z][a-z0-9+.-]*:/i.test(match[1])) targets.push(match[1]);
  return targets;
}

test("every relative link in the README, AGENTS.md and docs/ names a file and a heading that exist", () => {
  const broken: string[] = [];
  for (const page of PAGES) {
    for (const target of linksOf(page)) {
      const [path, anchor] = target.split("#", 2);
      const file = path === "" ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), decodeURI(path));
      if (!existsSync(file)) broken.push(`${page}: ${target} (no file ${relative(ROOT, file)})`);
      else if (anchor !== undefined && statSync(file).isFile() && file.endsWith(".md") && !anchorsOf(file).has(anchor))
        broken.push(`${page}: ${target} (no heading #${anchor} in ${relative(ROOT, file)})`);
    }
  }
  assert.deepEqual(broken, []);
});

test("the README stays a front door that links every page of the manual", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  assert.ok(readme.split("\n").length <= 150, "the README reads in five minutes: at most 150 lines");
  const linked = new Set(linksOf("README.md").map((target) => target.split("#")[0]));
  for (const page of PAGES.filter((name) => name.startsWith("docs/")))
    assert.ok(linked.has(page), `README links ${page}`);
});

test("the anchor rule is GitHub's", () => {
  assert.equal(anchorOf("Gemini: `--provider gemini`"), "gemini---provider-gemini");
  assert.equal(anchorOf("Claude Code's names"), "claude-codes-names");
  assert.equal(
    anchorOf("Instruction files: AGENTS.md, CLAUDE.md and `@imports`"),
    "instruction-files-agentsmd-claudemd-and-imports",
  );
});

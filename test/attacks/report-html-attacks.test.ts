// `harness batch report --html` of a results file from someone else, opened in headless Chromium:
// markup planted in every text field stays text, a string where a number belongs is refused
// before a page is written (it went into the page as markup, and its script ran), and the page's
// Content-Security-Policy runs only the report's own script (hashed), so a script that slipped
// into the page anyway would not run. The session export is held to the same policy.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { withPageInChromium } from "../support/chromium.ts";
import { runCli, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";

const PWN = `document.title='PWNED'`;
const MARKUP = `</script><script>${PWN}</script><img src=x onerror="${PWN}">" onmouseover="${PWN}" x="`;

function resultLine(fields: Record<string, unknown>): string {
  return `${JSON.stringify({
    runId: `run${MARKUP}`,
    provider: `p${MARKUP}`,
    model: `m${MARKUP}`,
    api: `a${MARKUP}`,
    thinking: `t${MARKUP}`,
    harnessVersion: `v${MARKUP}`,
    id: `task${MARKUP}`,
    status: "failed",
    attempt: 1,
    answer: MARKUP,
    turns: 2,
    tokens: { input: 10, output: 5, cached: 0 },
    cost: 0.001,
    durationMs: 1000,
    finishedAt: `2026-01-01T00:00:00.000Z${MARKUP}`,
    testExitCode: 1,
    sessionId: null,
    sessionPath: null,
    workdir: null,
    diff: null,
    error: `broke${MARKUP}`,
    ...fields,
  })}\n`;
}

test("a results file with markup in every text field gives a page that runs only its own script", {
  skip: needs("chromium"),
}, async () => {
  const dir = tempDir();
  writeFileSync(join(dir, "theirs.jsonl"), resultLine({}) + resultLine({ id: "b-second", status: "ok", turns: 1 }));
  const result = await runCli(["batch", "report", "theirs.jsonl", "--html", "report.html"], { cwd: dir });
  assert.equal(result.code, 0, result.stderr);
  const file = join(dir, "report.html");
  assert.match(
    readFileSync(file, "utf8"),
    /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-[A-Za-z0-9+/=]+'; /,
  );
  await withPageInChromium(file, async ({ page, url, requests, pageErrors }) => {
    assert.equal(await page.title(), "batch report: theirs.jsonl");
    assert.equal(await page.$$eval("img", (images) => images.length), 0, "planted markup stays text");
    assert.match((await page.textContent("#tasks tbody")) ?? "", /task<\/script><script>document\.title/);
    // The report's own script runs under the policy: sorting by turns puts the 1-turn task first.
    await page.click('th[data-column="3"]');
    assert.match((await page.textContent("#tasks tbody tr:first-child td:first-child")) ?? "", /^b-second$/);
    await page.hover("#tasks tbody td.run-start");
    assert.equal(await page.title(), "batch report: theirs.jsonl", "no planted handler ran");
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(requests, [url], "the page itself is the only request");
  });
});

test("a results file with markup where a number belongs writes no page", async () => {
  const dir = tempDir();
  writeFileSync(join(dir, "theirs.jsonl"), resultLine({ turns: `<img src=x onerror="${PWN}">` }));
  const result = await runCli(["batch", "report", "theirs.jsonl", "--html", "report.html"], { cwd: dir });
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /theirs\.jsonl:1: turns: /);
  assert.equal(existsSync(join(dir, "report.html")), false);
});

test("a script that slipped into a report does not run: the policy names only the page's own", {
  skip: needs("chromium"),
}, async () => {
  const dir = tempDir();
  writeFileSync(join(dir, "mine.jsonl"), resultLine({ id: "plain", model: "m", error: undefined }));
  const result = await runCli(["batch", "report", "mine.jsonl", "--html", "report.html"], { cwd: dir });
  assert.equal(result.code, 0, result.stderr);
  const file = join(dir, "report.html");
  // As if an escaping bug had let markup through: an inline script and an event handler.
  const page = readFileSync(file, "utf8").replace(
    "</body>",
    `<script>${PWN}</script><img src="data:," onerror="${PWN}"></body>`,
  );
  writeFileSync(file, page);
  await withPageInChromium(file, async ({ page: opened, console }) => {
    assert.equal(await opened.title(), "batch report: mine.jsonl", "the planted script did not run");
    assert.ok(
      console.some((line) => /Content Security Policy/.test(line)),
      `the browser refused it under the policy:\n${console.join("\n")}`,
    );
  });
});

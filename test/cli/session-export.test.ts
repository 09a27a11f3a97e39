// Export of a session with tool calls: Markdown on stdout, and a self-contained HTML page checked
// in headless Chromium (Debian's `chromium`; .ci/run installs it): it renders, a tool call expands
// on click, and no request leaves the page.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { withPageInChromium } from "../support/chromium.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

/** A recorded session: a prompt, a reply with a tool call, its output, a Markdown answer. */
async function recordSession() {
  const server = await serve([
    {
      reply: {
        text: "Let me look.",
        toolCalls: [
          { id: "call_ls", name: "bash", arguments: { command: "echo '<b>not bold</b>' && echo second-line" } },
        ],
      },
    },
    {
      reply: {
        // The raw <img> must stay text: rendered, it would be a request leaving the page.
        text: `## Result\n\nThe command printed **two lines**:\n\n- \`<b>not bold</b>\`\n- second-line\n\n<img src="${"http://127.0.0.1:9/leak.png"}">`,
      },
    },
  ]);
  const env = cleanEnv();
  const cwd = tempDir();
  const run = await runCli([...fakeFlags(server), "-y", "-p", "what does it print?"], { env, cwd });
  assert.equal(run.code, 0, run.stderr);
  const id = readdirSync(join(env.HARNESS_HOME as string, "sessions"))
    .find((name) => name.endsWith(".jsonl"))
    ?.replace(".jsonl", "") as string;
  return { env, cwd, id };
}

test("harness export --md prints the transcript as Markdown", async () => {
  const { env, cwd, id } = await recordSession();
  const result = await runCli(["export", id.slice(0, 10), "--md"], { env, cwd });
  assert.equal(result.code, 0, result.stderr);
  const md = result.stdout;
  assert.match(md, new RegExp(`^# harness session ${id}\n`));
  assert.ok(md.includes("## User\n\nwhat does it print?\n"));
  assert.ok(md.includes("**Tool call** `bash: echo '<b>not bold</b>' && echo second-line`"));
  assert.ok(md.includes('```json\n{\n  "command": "echo \'<b>not bold</b>\' && echo second-line"\n}\n```'));
  assert.ok(md.includes("Result:\n\n```\n<b>not bold</b>\nsecond-line\n[exit code: 0]\n```"), md);
  assert.ok(md.includes("## Result\n\nThe command printed **two lines**:"));
  assert.match(md, /- tokens: 20 in · 10 out · 0 cache read · 0 cache write/);
});

test("the HTML export renders offline in Chromium, tool calls expand on click, and nothing is fetched", {
  skip: needs("chromium"),
}, async () => {
  const { env, cwd, id } = await recordSession();
  const result = await runCli(["export", id], { env, cwd });
  assert.equal(result.code, 0, result.stderr);
  const file = join(cwd, `${id}.html`);
  assert.equal(result.stdout, `${file}\n`, "the default is <id>.html in the working directory");
  assert.match(readFileSync(file, "utf8"), /<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);

  await withPageInChromium(file, async ({ page, url, requests, pageErrors }) => {
    assert.equal(await page.title(), `harness session ${id}`);
    assert.equal(await page.textContent(".user .body"), "what does it print?");
    assert.equal(await page.textContent(".answer h2"), "Result");
    assert.equal(await page.textContent(".answer strong"), "two lines");
    assert.deepEqual(await page.$$eval(".answer li", (items) => items.map((li) => li.textContent)), [
      "<b>not bold</b>",
      "second-line",
    ]);
    assert.equal(await page.$$eval("img", (images) => images.length), 0, "raw HTML in an answer stays text");

    const tool = page.locator("details.tool");
    assert.equal(await tool.count(), 1);
    assert.equal(await tool.evaluate((d: HTMLDetailsElement) => d.open), false);
    assert.equal(await page.locator("details.tool pre.output").isVisible(), false);
    await page.click("details.tool > summary");
    assert.equal(await tool.evaluate((d: HTMLDetailsElement) => d.open), true);
    assert.equal(await page.locator("details.tool pre.output").isVisible(), true);
    assert.equal(await page.textContent("details.tool pre.output"), "<b>not bold</b>\nsecond-line\n[exit code: 0]");
    await page.click("#toggle-tools");
    assert.equal(
      await tool.evaluate((d: HTMLDetailsElement) => d.open),
      false,
      "the inline script runs under the page's CSP",
    );

    assert.deepEqual(pageErrors, []);
    assert.deepEqual(requests, [url], "the page itself is the only request");
  });
});

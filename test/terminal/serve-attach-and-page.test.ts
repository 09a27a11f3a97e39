// Issue 46's "done when": one session `harness serve` holds, watched and steered at once from a
// second terminal (`harness attach`, in tmux) and from the web page (headless Chromium). A prompt
// typed in the terminal streams in both; a prompt sent from the page is drawn as a run in the
// terminal; a question shows in both, is answered once on one side, and the other shows it answered
// (each way round).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { withPageInChromium } from "../support/chromium.ts";
import { fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { SERVE_LIMIT_MS, startServe } from "../support/serve.ts";
import { needs } from "../support/system-programs.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();
const PROMPT = /^>\s*$/m;

test("one served session: attached in a terminal and open on the page at once", {
  skip: needs("tmux", "chromium"),
}, async () => {
  const fake = await serve([
    { reply: { text: "Answer for the terminal." } },
    { reply: { text: "Hello from the page." } },
    { reply: { toolCalls: [{ id: "q", name: "write_file", arguments: { path: "q.txt", content: "q\n" } }] } },
    { reply: { text: "Wrote q.txt." } },
    { reply: { toolCalls: [{ id: "r", name: "write_file", arguments: { path: "r.txt", content: "r\n" } }] } },
    { reply: { text: "Wrote r.txt." } },
  ]);
  const served = await startServe(fake);
  const cwd = tempDir();
  const session = await served.client.createSession({ cwd });
  const term = TmuxTerminal.start({
    args: ["attach", session.id],
    cwd,
    env: {
      TERM: "xterm-256color",
      HARNESS_HOME: served.env.HARNESS_HOME as string,
      HOME: served.env.HOME as string,
    },
  });
  await term.waitFor(PROMPT, "the chat prompt");
  const say = (line: string) => {
    term.type(line);
    term.send(["Enter"]);
  };

  await withPageInChromium(`${served.url}#token=${served.token}`, async ({ page, pageErrors }) => {
    const timeout = SERVE_LIMIT_MS;
    await page.waitForFunction(
      (id) => (document.getElementById("sessions") as HTMLSelectElement).value === id,
      session.id,
      {
        timeout,
      },
    );

    // A prompt typed in the terminal: its answer in both.
    say("from the terminal");
    await term.waitFor(/Answer for the terminal\./);
    await page.locator(".user", { hasText: "from the terminal" }).waitFor({ timeout });
    await page.locator(".reply", { hasText: "Answer for the terminal." }).waitFor({ timeout });
    await page.locator("#status", { hasText: "idle" }).waitFor({ timeout });

    // A prompt sent from the page: drawn in the terminal as a run, with the person's line.
    await term.waitFor(PROMPT);
    await page.locator("#prompt").fill("from the page");
    await page.locator("button[type=submit]").click();
    const screen = await term.waitFor(/Hello from the page\./);
    assert.match(screen, /> from the page/);
    await page.locator(".reply", { hasText: "Hello from the page." }).waitFor({ timeout });
    await page.locator("#status", { hasText: "idle" }).waitFor({ timeout });

    // A question from the terminal's prompt shows in both; answered on the page, the terminal says so.
    await term.waitFor(PROMPT);
    say("write q");
    await term.waitFor(/allow\? write q\.txt/);
    const q = page.locator(".question", { hasText: "q.txt" });
    await q.waitFor({ timeout });
    await q.locator("button.yes").click();
    await term.waitFor(/answered elsewhere: yes/);
    await term.waitFor(/Wrote q\.txt\./);
    await page.locator(".reply", { hasText: "Wrote q.txt." }).waitFor({ timeout });
    assert.equal(await page.locator(".question").count(), 0);
    assert.equal(readFileSync(join(cwd, "q.txt"), "utf8"), "q\n");
    await page.locator("#status", { hasText: "idle" }).waitFor({ timeout });

    // A question from the page's prompt shows in both; answered in the terminal, it leaves the page.
    await term.waitFor(PROMPT);
    await page.locator("#prompt").fill("write r");
    await page.locator("button[type=submit]").click();
    const r = page.locator(".question", { hasText: "r.txt" });
    await r.waitFor({ timeout });
    await term.waitFor(/allow\? write r\.txt/);
    await term.waitFor(/\[y\]es {2}\[n\]o/);
    say("y");
    await term.waitFor(/Wrote r\.txt\./);
    await r.waitFor({ state: "detached", timeout });
    await page.locator(".reply", { hasText: "Wrote r.txt." }).waitFor({ timeout });
    const log = (await page.locator("#log").textContent()) ?? "";
    assert.equal(log.match(/answered: yes/g)?.length, 2, "each question answered once, both shown on the page");
    assert.equal(readFileSync(join(cwd, "r.txt"), "utf8"), "r\n");
    assert.doesNotMatch(term.screen(), /answered elsewhere first/);
    assert.deepEqual(pageErrors, []);
  });
});

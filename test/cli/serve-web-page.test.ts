// The page `harness serve` serves, in real headless Chromium at a phone's width (390 px): it
// loads with the token from the address's fragment, shows the running session's transcript and
// its question, answers the question (Allow), sends a prompt from the prompt box, switches the
// model and undoes both turns (asking first), and makes no
// request but to the server, with no script error and no policy refusal.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { withPageInChromium } from "../support/chromium.ts";
import { fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { SERVE_LIMIT_MS, startServe } from "../support/serve.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

test("the web page at 390 px: a running session, its question answered, a prompt sent, model switch, undo", {
  skip: needs("chromium"),
}, async () => {
  const fake = await serve([
    {
      reply: {
        text: "Writing it.",
        toolCalls: [{ id: "w", name: "write_file", arguments: { path: "page.txt", content: "from the page\n" } }],
      },
    },
    { reply: { text: "Wrote **page.txt**, with `care`." } },
    { reply: { text: "Second prompt answered." } },
  ]);
  const served = await startServe(fake);
  const cwd = tempDir();
  const session = await served.client.createSession({ cwd });
  await served.client.prompt(session.id, "write page.txt");
  const origin = new URL(served.url).origin;
  await withPageInChromium(`${served.url}#token=${served.token}`, async ({ page, requests, pageErrors, console }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const timeout = SERVE_LIMIT_MS;
    // The running session and its question.
    await page.locator(".user", { hasText: "write page.txt" }).waitFor({ timeout });
    const question = page.locator(".question");
    await question.waitFor({ timeout });
    assert.match((await question.textContent()) ?? "", /page\.txt/);
    assert.match((await question.locator(".diff").textContent()) ?? "", /\+from the page/);
    // What a person checks on a phone: the question and its Allow button on screen, not covered,
    // and the prompt box on screen too; nothing wider than the screen.
    const allow = question.locator("button.yes");
    for (const [name, locator] of [
      ["question", question],
      ["Allow", allow],
      ["prompt box", page.locator("#prompt")],
      ["Send", page.locator("button[type=submit]")],
    ] as const) {
      const box = await locator.boundingBox();
      assert.ok(box, `${name} is shown`);
      assert.ok(
        box.x >= 0 && box.y >= 0 && box.x + box.width <= 390 && box.y + box.height <= 844,
        `${name} on screen: ${JSON.stringify(box)}`,
      );
    }
    const allowBox = (await allow.boundingBox())!;
    const onTop = await page.evaluate(
      ([x, y]) => document.elementFromPoint(x, y)?.className,
      [allowBox.x + allowBox.width / 2, allowBox.y + allowBox.height / 2],
    );
    assert.equal(onTop, "yes", "the Allow button is what a tap there reaches");
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390, "no sideways scrolling");
    const shot = await page.screenshot();
    assert.ok(shot.length > 1000);
    // README's picture (docs/serve-page.png) is this screen: SERVE_PAGE_SCREENSHOT=<file> writes it.
    if (process.env.SERVE_PAGE_SCREENSHOT) writeFileSync(process.env.SERVE_PAGE_SCREENSHOT, shot);

    await allow.click();
    await page.locator(".reply strong", { hasText: "page.txt" }).waitFor({ timeout });
    assert.equal(await page.locator(".question").count(), 0, "the answered question is gone");
    assert.match((await page.locator("#log").textContent()) ?? "", /answered: yes/);
    assert.equal(readFileSync(join(cwd, "page.txt"), "utf8"), "from the page\n");
    await page.locator("#status", { hasText: "idle" }).waitFor({ timeout });

    // A prompt from the prompt box.
    await page.locator("#prompt").fill("and another");
    await page.locator("button[type=submit]").click();
    await page.locator(".reply", { hasText: "Second prompt answered." }).waitFor({ timeout });
    assert.match((await page.locator("#log").textContent()) ?? "", /and another/);

    // Model switch and undo, under "Model, undo": the field shows the model in use.
    await page.locator("#more summary").click();
    assert.equal(await page.locator("#model").inputValue(), "fake-model");
    await page.locator("#model").fill("other-model");
    await page.locator("#switch").click();
    await page.locator(".note", { hasText: "model: openai other-model" }).waitFor({ timeout });
    assert.equal((await served.client.session(session.id)).model, "other-model");
    // Undo asks first: the first press arms it and says what it does; the second undoes. Twice
    // takes back both turns (the second wrote no file, the first page.txt).
    const undo = page.locator("#undo");
    await undo.click();
    assert.equal(await undo.textContent(), "Undo it: files and conversation");
    assert.equal(await page.locator(".note", { hasText: "undid" }).count(), 0, "one press undoes nothing");
    await undo.click();
    await page.locator(".note", { hasText: /^undid 1 turn\(s\): no files$/ }).waitFor({ timeout });
    assert.equal(await undo.textContent(), "Undo last turn");
    await undo.click();
    await undo.click();
    await page.locator(".note", { hasText: "undid 1 turn(s): page.txt" }).waitFor({ timeout });
    assert.equal(await page.locator(".note", { hasText: "undid" }).count(), 2);
    assert.equal(existsSync(join(cwd, "page.txt")), false);
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(
      console.filter((line) => /Content Security Policy|Refused/.test(line)),
      [],
    );
    assert.deepEqual(
      requests.filter((url) => !url.startsWith(origin)),
      [],
    );
  });
});

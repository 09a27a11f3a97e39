// `harness batch report --html` as an evaluation one reads in a browser: two models' runs of the
// same tasks (one real batch each, against the fake server), the page opened in headless
// Chromium at a laptop's width: no script error, the paired comparison with its p-value, why a
// task failed in the table itself, every link to a task's diff and session export resolving to a
// file written beside the page, and no horizontal scroll at 1280 px nor at 800; and the same
// figures as JSON.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { pricedEnv, promptOf } from "../support/batch-files.ts";
import { withPageInChromium } from "../support/chromium.ts";
import type { ScriptStep } from "../support/fake-llm/server.ts";
import { fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

/** model-a solves "fix" only, model-b "hard" only: each edits README in a call, then answers. */
const step: ScriptStep = (request) => {
  const [model, prompt] = [request.body.model as string, promptOf(request)];
  const solves = (model === "model-a") === (prompt === "fix");
  const called = request.body.messages.some((message: { role: string }) => message.role === "tool");
  return solves && !called
    ? { reply: { toolCalls: [{ name: "bash", arguments: { command: `echo ${prompt}ed >> README` } }] } }
    : { reply: { text: `${model} done with ${prompt}` } };
};

test("the report page of two runs: paired comparison, reasons, links that resolve, a laptop's width", {
  skip: needs("chromium"),
}, async () => {
  const fake = await serve(Array.from({ length: 40 }, () => step));
  const dir = tempDir();
  const repo = join(dir, "repo");
  mkdirSync(repo);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: repo });
  git("init", "-q", "-b", "main");
  writeFileSync(join(repo, "README"), "start\n");
  git("add", ".");
  git("commit", "-qm", "base");
  const tasks = [
    { id: "fix", prompt: "fix", repo, test: "grep -q fixed README" },
    { id: "hard <b>one</b> & /../x", prompt: "hard", repo, test: "grep -q harded README" },
  ];
  writeFileSync(join(dir, "tasks.jsonl"), `${tasks.map((task) => JSON.stringify(task)).join("\n")}\n`);
  const env = pricedEnv();
  const base = ["batch", "tasks.jsonl", "--out", "results.jsonl", "--provider", "openai", "--base-url", fake.baseUrl];
  for (const model of ["model-a", "model-b"]) {
    const run = await runCli([...base, "--model", model, "--concurrency", "2"], { env, cwd: dir });
    assert.match(run.stderr, /2 of 2 tasks have results \(1 ok, 1 failed\)/, run.stderr);
  }

  const report = await runCli(["batch", "report", "results.jsonl", "--html", "out/report.html"], { env, cwd: dir });
  assert.equal(report.code, 0, report.stderr);
  assert.match(
    report.stdout,
    /\nrun 1 against run 2, task by task \(2 tasks both ran\):\n {2}both solved 0 · only run 1 1 · only run 2 1 · neither 0\n {2}McNemar's exact test: p = 1\.000 /,
  );
  assert.match(report.stderr, /report: .*report\.html \(2 diffs, 4 sessions beside it\)/);

  // The same figures as JSON (docs/batch.md's shape).
  const json = await runCli(["batch", "report", "results.jsonl", "--json"], { env, cwd: dir });
  assert.equal(json.code, 0, json.stderr);
  const figures = JSON.parse(json.stdout);
  assert.equal(figures.version, 1);
  assert.deepEqual(
    figures.runs.map((run: { model: string; tasks: number; successRate: number }) => [
      run.model,
      run.tasks,
      run.successRate,
    ]),
    [
      ["model-a", 2, 0.5],
      ["model-b", 2, 0.5],
    ],
  );
  assert.deepEqual(
    [
      figures.pairs[0].both,
      figures.pairs[0].onlyA,
      figures.pairs[0].onlyB,
      figures.pairs[0].neither,
      figures.pairs[0].pValue,
    ],
    [0, 1, 1, 0, 1],
  );
  assert.equal(figures.pairs[0].cost.resamples, 10_000);
  assert.equal(figures.tasks.length, 2);

  const page = join(dir, "out", "report.html");
  await withPageInChromium(page, async ({ page: opened, url, pageErrors, requests }) => {
    await opened.setViewportSize({ width: 1280, height: 800 });
    assert.equal(await opened.textContent('[data-pair="1-2"] .p-value'), "p = 1.000");
    assert.equal(await opened.textContent('[data-pair="1-2"] td.only-a'), "1");
    // Why "fix" failed for model-b is in its row, visible without hovering.
    const why = opened.locator("#tasks tr", { hasText: "fix" }).locator(".why");
    assert.ok(await why.isVisible());
    assert.match((await why.textContent()) ?? "", /^test exited 1/);
    assert.equal(await opened.locator("figure.chart svg g.run").count(), 2, "a point per run in the chart");
    const hrefs = await opened.$$eval("a[href]", (links) => links.map((link) => (link as HTMLAnchorElement).href));
    assert.equal(hrefs.length, 10, `2 diffs, 4 sessions and 4 trajectories: ${hrefs.join("\n")}`);
    for (const href of hrefs) {
      assert.ok(href.startsWith(new URL("report.files/", url).href), `beside the page: ${href}`);
      assert.ok(existsSync(fileURLToPath(href)), `the link resolves: ${href}`);
    }
    const noScroll = () => opened.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    assert.ok(await noScroll(), "no horizontal scroll at 1280 px");
    await opened.setViewportSize({ width: 800, height: 800 });
    assert.ok(await noScroll(), "no horizontal scroll at 800 px (wide tables scroll in their own box)");
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(requests, [url], "the page fetches nothing");
    // A diff link opens the task's diff, its markup escaped; a session link the session's export.
    const diff = hrefs.find((href) => href.endsWith(".diff.html") && href.includes("hard")) ?? "";
    await opened.goto(diff);
    assert.equal(await opened.title(), "diff of hard <b>one</b> & /../x");
    assert.match((await opened.textContent("pre")) ?? "", /\+harded/);
    await opened.goto(hrefs.find((href) => href.endsWith(".session.html")) ?? "");
    assert.match((await opened.textContent("body")) ?? "", /model-[ab] done with/);
    assert.deepEqual(pageErrors, []);
  });
});

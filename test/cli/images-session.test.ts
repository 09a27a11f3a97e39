// Images in sessions, through the built CLI: a small one stays inline in the session line, a
// large one is kept in a file beside the session; resuming sends both again; the HTML export
// shows them and the Markdown export links them.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { pngOf, TINY_GIF } from "../support/images.ts";

const serve = fakeServerPerTest();

test("a session keeps a small image inline and a large one in a file; resume sends both; exports show and link them", async () => {
  const cwd = tempDir();
  const env = cleanEnv({ OPENAI_API_KEY: "k" });
  const big = pngOf(400, 400); // 400 KB: past the inline limit
  writeFileSync(join(cwd, "big.png"), big);
  writeFileSync(join(cwd, "dot.gif"), TINY_GIF);
  const server = await serve([{ reply: { text: "seen both" } }, { reply: { text: "still there" } }]);
  const first = await runCli([...fakeFlags(server), "-p", "look at @big.png and @dot.gif"], { cwd, env });
  assert.equal(first.code, 0, first.stderr);

  const sessions = join(env.HARNESS_HOME as string, "sessions");
  const [file] = readdirSync(sessions).filter((name) => name.endsWith(".jsonl"));
  const id = file.replace(/\.jsonl$/, "");
  const lines = readFileSync(join(sessions, file), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  const content = lines.find((line) => line.type === "message" && line.message.role === "user").message.content;
  const stored = content.filter((part: { type: string }) => part.type === "image");
  assert.equal(stored.length, 2);
  assert.match(stored[0].file, new RegExp(`^${id}/images/[0-9a-f]{16}\\.png$`));
  assert.equal(stored[0].data, "");
  assert.deepEqual(readFileSync(join(sessions, stored[0].file)), big);
  assert.deepEqual(stored[1], { type: "image", mediaType: "image/gif", data: TINY_GIF.toString("base64") });

  const resumed = await runCli([...fakeFlags(server), "-r", id, "-p", "and now?"], { cwd, env });
  assert.equal(resumed.code, 0, resumed.stderr);
  const sent = server.requests[1].body.messages.find((message: { role: string }) => message.role === "user").content;
  const urls = sent
    .filter((part: { type: string }) => part.type === "image_url")
    .map((part: { image_url: { url: string } }) => part.image_url.url);
  assert.deepEqual(urls, [
    `data:image/png;base64,${big.toString("base64")}`,
    `data:image/gif;base64,${TINY_GIF.toString("base64")}`,
  ]);

  const html = await runCli(["export", id, "--html", "-o", "-"], { cwd, env });
  assert.equal(html.code, 0, html.stderr);
  assert.ok(
    html.stdout.includes(`<img class="attached" src="data:image/png;base64,${big.toString("base64")}"`),
    "the large image is embedded in the page",
  );
  assert.ok(
    html.stdout.includes(`<img class="attached" src="data:image/gif;base64,${TINY_GIF.toString("base64")}"`),
    "the small one too",
  );

  const markdown = await runCli(["export", id, "--md"], { cwd, env });
  assert.equal(markdown.code, 0, markdown.stderr);
  assert.ok(markdown.stdout.includes(`![image/png](<${join(sessions, stored[0].file)}>)`), markdown.stdout);
  assert.ok(markdown.stdout.includes(`![image/gif](data:image/gif;base64,${TINY_GIF.toString("base64")})`));
});

// `harness attach` and the client library against a running `harness serve`: the attached
// terminal sees the session's question, answers it and sends the next prompt, then detaches with
// the session still running in the server; docs/serve.md's library example runs as written.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { CLI, fakeServerPerTest, ROOT, tempDir } from "../support/helpers.ts";
import { SERVE_LIMIT_MS, startServe, watchUntil } from "../support/serve.ts";
import { killAtTestEnd } from "../support/teardown.ts";

const serve = fakeServerPerTest();

test("attach: the question answered from the terminal, a prompt sent, detached with the session running", async () => {
  const fake = await serve([
    {
      reply: {
        text: "Writing.",
        toolCalls: [{ id: "w", name: "write_file", arguments: { path: "a.txt", content: "a\n" } }],
      },
    },
    { reply: { text: "Wrote a.txt." } },
    { reply: { text: "Second reply." } },
    { reply: { text: "After detaching." } },
  ]);
  const served = await startServe(fake);
  const cwd = tempDir();
  const session = await served.client.createSession({ cwd });
  await served.client.prompt(session.id, "write a");
  const child = killAtTestEnd(
    spawn(process.execPath, [CLI, "attach", session.id.slice(0, 6)], {
      cwd,
      env: served.env,
      stdio: ["pipe", "pipe", "pipe"],
    }),
  );
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const waitFor = async (pattern: RegExp) => {
    const limit = Date.now() + SERVE_LIMIT_MS;
    while (!pattern.test(output)) {
      assert.ok(Date.now() < limit, `waited for ${pattern} in:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  // The chat's own question (ui/approval.ts), answered from this terminal.
  await waitFor(/\[y\]es {2}\[n\]o/);
  assert.match(output, /allow\? .*a\.txt/);
  child.stdin.write("y\n");
  await waitFor(/Wrote a\.txt\./);
  assert.equal(readFileSync(join(cwd, "a.txt"), "utf8"), "a\n");
  child.stdin.write("say more\n");
  await waitFor(/Second reply\./);
  child.stdin.end("/detach\n");
  const code = await new Promise((resolve) => child.on("close", resolve));
  assert.equal(code, 0, output);
  assert.match(output, /detached;/);
  // The session goes on in the server: another prompt runs there.
  const before = (await served.client.session(session.id)).lastEventId;
  await served.client.prompt(session.id, "still there?");
  const after = await watchUntil(served.client, session.id, (event) => event.type === "done", { after: before });
  assert.equal((after.at(-1)!.event as { answer: string }).answer, "After detaching.");
});

test("docs/serve.md's library example runs as written against the server", async () => {
  const fake = await serve([
    { reply: { toolCalls: [{ id: "b", name: "bash", arguments: { command: "touch from-example.txt" } }] } },
    { reply: { text: "Listed them." } },
  ]);
  const served = await startServe(fake);
  const docs = readFileSync(join(ROOT, "docs", "serve.md"), "utf8");
  const section = docs.slice(docs.indexOf("## Library"));
  const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(example, "docs/serve.md's Library section has a ```ts example");
  const cwd = tempDir();
  const file = join(tempDir(), "example.mts");
  writeFileSync(file, example.replace('from "agent-harness"', `from ${JSON.stringify(join(ROOT, "src", "index.ts"))}`));
  const child = killAtTestEnd(
    spawn(process.execPath, ["--import", import.meta.resolve("tsx"), file], {
      cwd,
      env: served.env,
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const code = await new Promise((resolve) => child.on("close", resolve));
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "Listed them.");
  assert.ok(existsSync(join(cwd, "from-example.txt")), "the example's answer let the command run");
});

// `harness serve` killed with -9 in the middle of a turn: the session file is whole (every line
// JSON, the finished turn and the cut prompt in it); a new server serves it again (`harness
// attach <id>` resumes it, taking over the dead server's lock) with its conversation; a client
// that comes back with the last event id of the dead server is told what it missed (`reset`)
// and gets the new events, losing nothing the new server has.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ServeClient } from "../../src/server/serve-client.ts";
import { CLI, fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { SERVE_LIMIT_MS, startServe, watchUntil } from "../support/serve.ts";
import { killAtTestEnd } from "../support/teardown.ts";

const serve = fakeServerPerTest();

test("serve killed with -9 mid-turn: the session file is whole, served again, clients catch up", async () => {
  const fake = await serve([
    { reply: { text: "Noted: apple." } },
    { stall: { text: "Thinking about it for a long while" }, afterEvents: 3 },
    { reply: { text: "The word was apple." } },
    { reply: { text: "Still here." } },
  ]);
  const first = await startServe(fake);
  const cwd = tempDir();
  const session = await first.client.createSession({ cwd });
  await first.client.prompt(session.id, "remember the word apple");
  await watchUntil(first.client, session.id, (event) => event.type === "done");
  const before = (await first.client.session(session.id)).lastEventId;
  await first.client.prompt(session.id, "now think at length");
  const seen = await watchUntil(first.client, session.id, (event) => event.type === "text_delta", { after: before });
  const lastSeen = seen.at(-1)!.id!;
  first.child.kill("SIGKILL");
  await new Promise((resolve) => first.child.once("close", resolve));

  // The file: every line JSON, the finished turn and the prompt that was cut in it.
  const sessions = join(first.env.HARNESS_HOME as string, "sessions");
  const [file] = readdirSync(sessions).filter((name) => name.endsWith(".jsonl"));
  const lines = readFileSync(join(sessions, file), "utf8").trimEnd().split("\n");
  const entries = lines.map((line) => JSON.parse(line));
  const recorded = JSON.stringify(entries);
  for (const text of ["remember the word apple", "Noted: apple.", "now think at length"])
    assert.ok(recorded.includes(text), `the session file keeps ${text}`);

  // A new server (a new token); `harness attach <id>` serves the session again and continues it.
  const second = await startServe(fake, { env: first.env });
  assert.notEqual(second.token, first.token);
  // Only a stored session, and only in its own folder (which is judged as any session's is).
  await assert.rejects(second.client.createSession({ resume: "../../etc/passwd" }), /no session with id/);
  await assert.rejects(second.client.createSession({ cwd: tempDir(), resume: session.id }), /give that folder/);
  const attach = killAtTestEnd(
    spawn(process.execPath, [CLI, "attach", session.id], { cwd, env: first.env, stdio: ["pipe", "pipe", "pipe"] }),
  );
  let output = "";
  attach.stdout.on("data", (chunk) => (output += chunk));
  attach.stderr.on("data", (chunk) => (output += chunk));
  const waitFor = async (pattern: RegExp) => {
    const limit = Date.now() + SERVE_LIMIT_MS;
    while (!pattern.test(output)) {
      assert.ok(Date.now() < limit, `waited for ${pattern} in:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await waitFor(new RegExp(`serving ${session.id} again`));
  attach.stdin.write("which word?\n");
  await waitFor(/The word was apple\./);
  attach.stdin.end("/detach\n");
  assert.equal(await new Promise((resolve) => attach.on("close", resolve)), 0, output);
  // The model got the conversation from before the kill.
  const asked = JSON.stringify(fake.requests.at(-1)!.body);
  assert.ok(asked.includes("remember the word apple") && asked.includes("Noted: apple."), asked);
  assert.equal((await second.client.session(session.id)).id, session.id);
  // Serving it twice is refused.
  await assert.rejects(second.client.createSession({ resume: session.id }), /serves that session already/);

  // A client of the dead server comes back with its last id and the new token: told it missed
  // events (its ids were the old server's), then given what the new server has, then the new ones.
  const returning = new ServeClient({ url: second.url, token: second.token });
  const caught = await watchUntil(returning, session.id, (event) => event.type === "done", { after: lastSeen });
  assert.equal(caught[0].event.type, "reset");
  assert.ok(caught.some((item) => item.event.type === "text_delta"));
  const newest = caught.at(-1)!.id!;
  assert.ok(newest > lastSeen, "the new server's ids are above the dead one's");
  await second.client.prompt(session.id, "still there?");
  const next = await watchUntil(returning, session.id, (event) => event.type === "done", { after: newest });
  assert.notEqual(next[0].event.type, "reset");
  assert.equal((next.at(-1)!.event as { answer: string }).answer, "Still here.");
});

// A full disk while the session is written: one clear line, the JSON `done` event with the
// error, exit 1, and a session that `-c` continues. The disk is really full: the sessions folder
// is a 64 KB tmpfs (bwrap --size), and the reply is larger than that.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir, withoutSandboxWarning } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

const TMPFS_BYTES = 64 * 1024;

test("a full disk ends the run with one line, a JSON done event and exit 1; -c then continues the session", {
  skip: needs("bwrap"),
}, async () => {
  const longReply = "a long answer that does not fit on the disk. ".repeat(6000); // about 270 KB
  const fake = await serve([{ reply: { text: longReply, chunkSize: 16_384 } }, { reply: { text: "a short answer" } }]);
  const cwd = tempDir();
  const env = cleanEnv();
  const home = env.HARNESS_HOME as string;
  const sessions = join(home, "sessions");
  mkdirSync(sessions);
  mkdirSync(join(home, "saved"));
  // The sessions folder is a tiny tmpfs only inside bwrap: its files are copied out before it goes.
  const wrap = [
    "bwrap",
    "--dev-bind",
    "/",
    "/",
    "--size",
    String(TMPFS_BYTES),
    "--tmpfs",
    sessions,
    "--",
    "sh",
    "-c",
    '"$@"; code=$?; cp -a "$HARNESS_HOME/sessions/." "$HARNESS_HOME/saved/"; exit $code',
    "sh",
  ];
  const full = await runCli([...fakeFlags(fake), "--sandbox", "off", "--output", "json", "-p", "write a long answer"], {
    env,
    cwd,
    wrap,
  });

  assert.equal(full.code, 1, full.stderr);
  const [file] = readdirSync(join(home, "saved"));
  assert.match(file, /\.jsonl$/);
  const line = `error: cannot write the session file ${join(sessions, file)}: no space left on device (ENOSPC); the run stopped. The session is kept up to its last whole entry: free some space, then continue it with harness -c\n`;
  assert.equal(withoutSandboxWarning(full.stderr), line);
  const done = JSON.parse(full.stdout);
  assert.deepEqual([done.type, done.reason], ["done", "error"]);
  assert.equal(`error: ${done.error}\n`, line, "the failure reads as in text mode");

  // The file holds whole lines only: the header, the prompt (and its turn mark); the reply that did not fit is gone.
  const lines = readFileSync(join(home, "saved", file), "utf8").split("\n");
  assert.equal(lines.pop(), "", "the file ends with a whole line");
  const entries = lines.map((text) => JSON.parse(text));
  assert.equal(entries[0].type, "session");
  assert.deepEqual(
    entries.filter((entry) => entry.type === "message").map((entry) => entry.message.role),
    ["user"],
  );

  // Space again (the file back on the real disk): -c continues where the session stopped.
  rmSync(sessions, { recursive: true });
  renameSync(join(home, "saved"), sessions);
  const resumed = await runCli([...fakeFlags(fake), "--sandbox", "off", "-c", "-p", "now a short one"], { env, cwd });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, "a short answer\n");
  assert.equal(withoutSandboxWarning(resumed.stderr), "", "no torn line to report");
  const sent = fake.requests[1].body.messages.map(
    (message: { role: string; content: string }) => `${message.role}: ${message.content}`,
  );
  assert.deepEqual(sent.slice(1), ["user: write a long answer", "user: now a short one"]);
});

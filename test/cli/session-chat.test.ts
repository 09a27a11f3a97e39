// The chat on a real pseudo-terminal (util-linux `script`): slash commands, input history across
// runs, and a resumed chat that replays its end. TERM=dumb keeps the line editor to plain
// readline, so the test reads plain text (plain readline ignores the arrows on a dumb terminal,
// so the history file is checked rather than recalled with them).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { readSession } from "../../src/session/session-reader.ts";
import { CLI, cleanEnv, fakeFlags, fakeServerPerTest, tempDir, withoutSandboxWarning } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { killAtTestEnd } from "../support/teardown.ts";

/** How often the test looks at the terminal's output. */
const POLL_MS = 20;
/** A bound on each wait, so a broken chat fails with its screen instead of hanging the suite. */
const WAIT_LIMIT_MS = 30_000;

const serve = fakeServerPerTest();

/**
 * A chat on a pty: `send` types a line and waits until the output since then matches `until` and a
 * new prompt. The chat is killed when the test ends: a failed assertion while it runs must not
 * leave it holding the test process open (it did: one failure froze the whole suite).
 */
function startChat(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const command = [process.execPath, CLI, ...args].map((arg) => `'${arg}'`).join(" ");
  const child = killAtTestEnd(
    spawn("script", ["-qfec", command, "/dev/null"], { env, cwd, stdio: ["pipe", "pipe", "pipe"] }),
  );
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  const closed = new Promise<void>((resolve) => child.on("close", () => resolve()));
  const screenSince = (from: number) => withoutSandboxWarning(output.slice(from).replace(/\r/g, ""));
  const waitFor = async (pattern: RegExp, from: number) => {
    const deadline = Date.now() + WAIT_LIMIT_MS;
    while (!pattern.test(screenSince(from))) {
      if (Date.now() > deadline) throw new Error(`the chat never showed ${pattern}; it showed:\n${screenSince(from)}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return screenSince(from);
  };
  return {
    ready: () => waitFor(/> $/, 0),
    async send(keys: string, until: RegExp): Promise<string> {
      const from = output.length;
      child.stdin.write(`${keys}\r`);
      return waitFor(new RegExp(`${until.source}[\\s\\S]*> $`), from);
    },
    async exit(): Promise<string> {
      child.stdin.write("/exit\r");
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(`the chat did not exit within ${WAIT_LIMIT_MS} ms of /exit; it showed:\n${screenSince(0)}`),
            ),
          WAIT_LIMIT_MS,
        );
      });
      await Promise.race([closed, limit]).finally(() => clearTimeout(timer));
      return screenSince(0);
    },
  };
}

function sessionFiles(env: NodeJS.ProcessEnv): string[] {
  const dir = join(env.HARNESS_HOME as string, "sessions");
  return readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .sort()
    .map((name) => join(dir, name));
}

test("chat: slash commands, history across runs, and a resumed chat", { skip: needs("script") }, async () => {
  const fake = await serve([
    { reply: { text: "hi there" } },
    { reply: { text: "second reply" } },
    { reply: { text: "third reply" } },
    { reply: { text: "fourth reply" } },
  ]);
  const env = cleanEnv({ TERM: "dumb" });
  const cwd = tempDir();

  const chat = startChat(fakeFlags(fake), env, cwd);
  await chat.ready();
  await chat.send("hello", /hi there/);
  await chat.send(
    "/cost",
    /this session: tokens: 10 in · 5 out · \$0 \(no price known for model "fake-model": counted as free; set its prices in config\.json\)/,
  );
  await chat.send("/modle x", /unknown command \/modle; did you mean \/model \[name\]\? \(\/help lists them\)/);
  await chat.send("/model other-model", /now using openai · other-model/);
  await chat.send("second", /second reply/);
  assert.equal(fake.requests[1].body.model, "other-model");
  const exported = await chat.send("/export md notes.md", /wrote \S+notes\.md/);
  assert.match(exported, new RegExp(`wrote ${join(cwd, "notes.md")}`));
  assert.match(readFileSync(join(cwd, "notes.md"), "utf8"), /## User\n\nhello\n\n## Assistant\n\nhi there\n/);
  const cleared = await chat.send("/clear", /new session \S+/);
  await chat.send("third", /third reply/);
  assert.deepEqual(
    fake.requests[2].body.messages.slice(1),
    [{ role: "user", content: "third" }],
    "/clear starts from an empty conversation",
  );
  const listed = await chat.send("/sessions", /2 turns {2}hello/);
  assert.match(listed, /1 turn {2}\(this session\) {2}third/, "the chat's own session, held by this process");
  const help = await chat.send("/help", /\/resume \[id\] +continue another session/);
  for (const key of ["Esc", "Alt-Enter", "Ctrl-R", "Tab", "@path"])
    assert.match(help, new RegExp(`^${key} +\\S`, "m"), `/help lists ${key}`);
  await chat.exit();

  const [first, second] = sessionFiles(env);
  const firstSession = readSession(first);
  assert.deepEqual(
    firstSession.entries.filter((e) => e.type === "model_change").map((e) => e.type === "model_change" && e.model),
    ["other-model"],
  );
  assert.equal(firstSession.model, "other-model");
  assert.match(cleared, new RegExp(`new session ${readSession(second).header.id}`));
  const history = readFileSync(join(env.HARNESS_HOME as string, "history"), "utf8");
  assert.equal(
    history,
    [
      "hello",
      "/cost",
      "/modle x",
      "/model other-model",
      "second",
      "/export md notes.md",
      "/clear",
      "third",
      "/sessions",
      "/help",
      "/exit",
      "",
    ].join("\n"),
  );

  // --continue: the latest session (the cleared one) replays its end before the prompt.
  const resumed = startChat(["-c"], env, cwd);
  const opening = await resumed.ready();
  assert.match(opening, /^> third\nthird reply\nharness · openai · other-model · /);
  const switched = await resumed.send(
    `/resume ${firstSession.header.id.slice(0, 10)}`,
    /resumed session \S+ \(openai · other-model\)/,
  );
  assert.match(switched, /> second\nsecond reply/);
  await resumed.send("fourth", /fourth reply/);
  await resumed.exit();
  assert.equal(fake.requests[3].body.model, "other-model", "a resumed session keeps its model");
  assert.deepEqual(
    fake.requests[3].body.messages.slice(1).map((m: any) => m.content),
    ["hello", "hi there", "second", "second reply", "fourth"],
  );
});

test("chat: /thinking shows and sets the level; the next request carries it and the status line names it", {
  skip: needs("script"),
}, async () => {
  const fake = await serve([{ reply: { text: "thought about it" } }]);
  const env = cleanEnv({ TERM: "dumb" });
  const chat = startChat(["--provider", "openai", "--base-url", fake.baseUrl, "--model", "gpt-5-mini"], env, tempDir());
  await chat.ready();
  await chat.send("/thinking", /thinking: default/);
  await chat.send("/thinking lots", /\/thinking takes off, low, medium, high or a token budget/);
  await chat.send("/thinking high", /thinking: high/);
  const screen = await chat.send("hello", /thought about it/);
  assert.match(screen, /gpt-5-mini · thinking high · context/);
  assert.equal(fake.requests[0].body.reasoning_effort, "high");
  // A priced model: /cost says dollars (gpt-5-mini: $0.25 in, $2 out per million tokens; 10 in, 5 out).
  await chat.send("/cost", /this session: tokens: 10 in · 5 out · \$0\.0000\d+/);
  await chat.exit();
});

test("chat: /fork goes on in a copy under a new id with the whole conversation; the original keeps only what came before", {
  skip: needs("script"),
}, async () => {
  const fake = await serve([{ reply: { text: "first answer" } }, { reply: { text: "answer in the copy" } }]);
  const env = cleanEnv({ TERM: "dumb" });
  const chat = startChat(fakeFlags(fake), env, tempDir());
  await chat.ready();
  await chat.send("/fork", /error: nothing to fork yet: this session has no messages/);
  await chat.send("hello", /first answer/);
  const [originPath] = sessionFiles(env);
  const originId = readSession(originPath).header.id;
  const forked = await chat.send("/fork", /forked: this chat goes on in \S+; \S+ stays as it was/);
  const copyId = /goes on in (\S+);/.exec(forked)?.[1];
  assert.match(forked, new RegExp(`; ${originId} stays as it was \\(harness -r ${originId}\\)`));
  await chat.send("go on", /answer in the copy/);
  const screen = await chat.exit();
  assert.match(screen, new RegExp(`resume with: harness -r ${copyId}`), "the hint names the copy");

  assert.deepEqual(
    fake.requests[1].body.messages.slice(1).map((m: any) => m.content),
    ["hello", "first answer", "go on"],
    "the copy carries the conversation on",
  );
  const copy = readSession(sessionFiles(env).find((file) => file !== originPath) as string);
  assert.equal(copy.header.id, copyId);
  assert.equal(copy.header.forkedFrom, originId);
  assert.deepEqual(
    copy.messages.map((m) => m.role),
    ["user", "assistant", "user", "assistant"],
  );
  assert.deepEqual(
    readSession(originPath).messages.map((m) => m.role),
    ["user", "assistant"],
    "the original stays as it was",
  );
});

test("chat: /model lists the endpoint's models with the one in use marked; when the endpoint cannot list them, the known ones, said so", {
  skip: needs("script"),
}, async () => {
  const fake = await serve([]);
  fake.models = ["zeta-model", "fake-model", "alpha-model"];
  const env = cleanEnv({ TERM: "dumb" });
  const chat = startChat(fakeFlags(fake), env, tempDir());
  await chat.ready();
  const listed = await chat.send("/model", /switch with \/model <name>/);
  assert.match(
    listed,
    /using openai · fake-model; openai offers \(\* in use\):\n {2}alpha-model\n\* fake-model\n {2}zeta-model\nswitch with \/model <name>\n/,
  );
  assert.deepEqual(
    fake.requests.map((request) => `${request.method} ${request.path}`),
    ["GET /v1/models"],
  );

  fake.models = undefined; // the endpoint has no model list now: 404
  const known = await chat.send("/model", /switch with \/model <name>/);
  assert.match(
    known,
    new RegExp(
      `using openai · fake-model\\ncannot list openai's models: openai at ${fake.baseUrl} does not list its models \\(GET ${fake.baseUrl}/models answered 404\\)\\nmodels harness knows for openai \\(not checked with the endpoint\\):\\n(  \\S+\\n)+switch with`,
    ),
  );
  assert.match(known, /^ {2}gpt-5-mini$/m);
  assert.deepEqual(fake.errors.splice(0), ["request 2 to unknown path /v1/models"]);
  await chat.exit();
});

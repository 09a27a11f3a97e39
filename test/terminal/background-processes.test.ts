// Background processes (bash `background: true`, bash_output, bash_kill) through the built CLI
// against the fake LLM server, with real bash, with the sandbox on (bwrap) and off. A process is
// found from outside by a marker word on its command line (/proc/*/cmdline), which works across
// the sandbox's PID namespace; every marked process left when a test ends is killed then.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { test } from "node:test";
import type { RecordedRequest, ScriptStep } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";
import { onTestEnd } from "../support/teardown.ts";
import { TmuxTerminal } from "../support/tui-tmux.ts";

const serve = fakeServerPerTest();
const NODE = process.execPath;
/** Liveness bound on waiting for a process to go or a request to come; far above the expected time. */
const WAIT_LIMIT_MS = 20_000;

const MODES = [
  { sandbox: "on", skip: needs("bwrap") },
  { sandbox: "off", skip: false },
] as const;

/** Ids of the processes whose command line has `marker` as one of its words. */
function pidsWith(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").includes(marker)) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** A word no other process has; whatever still carries it when the test ends is killed. */
function newMarker(): string {
  const marker = `bg-marker-${randomUUID()}`;
  onTestEnd(() => {
    for (const pid of pidsWith(marker)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });
  return marker;
}

async function waitUntil(what: string, isDone: () => boolean): Promise<void> {
  const until = Date.now() + WAIT_LIMIT_MS;
  while (!isDone()) {
    if (Date.now() > until) throw new Error(`waited ${WAIT_LIMIT_MS} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A bash command running node on `source` (no single quotes in it), with the marker as its argument. */
function nodeCommand(source: string, marker: string): string {
  return `exec ${NODE} -e '${source}' ${marker}`;
}

/** An HTTP server on 127.0.0.1 port 0 that prints its port and then each path it serves. */
const SERVER = [
  'const s = require("node:http").createServer((q, r) => { console.log("served " + q.url); r.end("hello from the background"); });',
  's.listen(0, "127.0.0.1", () => console.log("listening on " + s.address().port));',
].join(" ");
/** Stays up, saying so once. */
const IDLER = 'console.log("up"); setInterval(() => {}, 1000);';

function call(id: string, name: string, args: Record<string, unknown>): ScriptStep {
  return { reply: { toolCalls: [{ id, name, arguments: args }] } };
}

/** The results the model got so far, by call id. */
function resultsIn(request: RecordedRequest): Map<string, string> {
  const messages = request.body.messages as { role: string; tool_call_id?: string; content: string }[];
  return new Map(messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id as string, m.content]));
}

function flags(fake: Parameters<typeof fakeFlags>[0], sandbox: string): string[] {
  return [...fakeFlags(fake), "--sandbox", sandbox, "-y"];
}

for (const { sandbox, skip } of MODES) {
  test(`sandbox ${sandbox}: a background server is started, polled, reached by a later command, killed, and gone`, {
    skip,
  }, async () => {
    const marker = newMarker();
    const alive: Record<string, number[]> = {};
    let phase = "start";
    let polls = 0;
    // One state machine behind every step: the port may come with the start's first output or later.
    const next = (request: RecordedRequest): ScriptStep => {
      const results = resultsIn(request);
      switch (phase) {
        case "start":
          phase = "port";
          return call("start", "bash", { command: nodeCommand(SERVER, marker), background: true });
        case "port": {
          const port = /listening on (\d+)/.exec([...results.values()].join("\n"))?.[1];
          if (!port) {
            if (polls++ > 10) throw new Error(`no port in ${JSON.stringify([...results])}`);
            return call(`wait${polls}`, "bash_output", { id: 1, wait: 2 });
          }
          phase = "poll";
          const fetch = `fetch("http://127.0.0.1:${port}/ping").then((r) => r.text()).then(console.log)`;
          return call("fetch", "bash", { command: `${NODE} -e '${fetch}'` });
        }
        case "poll":
          phase = "kill";
          return call("poll", "bash_output", { id: 1, wait: 3 });
        case "kill":
          phase = "after";
          alive.beforeKill = pidsWith(marker);
          return call("kill", "bash_kill", { id: 1 });
        case "after":
          phase = "end";
          alive.afterKill = pidsWith(marker);
          return call("after", "bash_output", { id: 1 });
        default:
          return { reply: { text: "done" } };
      }
    };
    const fake = await serve(Array.from({ length: 20 }, () => next));
    const result = await runCli([...flags(fake, sandbox), "-p", "start the server"]);
    assert.equal(result.code, 0, result.stderr);
    const results = resultsIn(fake.requests.at(-1) as RecordedRequest);

    assert.match(results.get("start") ?? "", /^\[background process 1: bash_output reads/);
    assert.match(results.get("start") ?? "", /\[running in the background as id 1\]$/);
    assert.match(
      results.get("fetch") ?? "",
      /^hello from the background\n\[exit code: 0\]$/,
      "reached from the same sandbox",
    );
    assert.equal(
      results.get("poll"),
      "served /ping\n[running in the background as id 1]",
      "only what came since the last read",
    );
    assert.equal(alive.beforeKill?.length, 1, "the server ran until bash_kill");
    assert.match(results.get("kill") ?? "", /^\[killed by SIGTERM\]$/);
    assert.deepEqual(alive.afterKill, [], "bash_kill waited for it to end");
    assert.equal(results.get("after"), "[killed by SIGTERM]");
    assert.deepEqual(pidsWith(marker), []);
  });

  test(`sandbox ${sandbox}: a background process still running when the session ends is killed before the harness exits`, {
    skip,
  }, async () => {
    const marker = newMarker();
    let aliveAtEnd: number[] = [];
    const fake = await serve([
      call("start", "bash", { command: nodeCommand(IDLER, marker), background: true }),
      () => {
        aliveAtEnd = pidsWith(marker);
        return { reply: { text: "left it running" } };
      },
    ]);
    const result = await runCli([...flags(fake, sandbox), "-p", "start it"]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(aliveAtEnd.length, 1, "it was running at the last model call");
    assert.match(resultsIn(fake.requests[1]).get("start") ?? "", /^\[background process 1: .*\]\n(up\n)?\[running/);
    assert.deepEqual(pidsWith(marker), [], "gone once the harness has exited");
  });

  test(`sandbox ${sandbox}: a daemon a command left with setsid (its parent gone) ends with the session`, {
    skip,
  }, async () => {
    const marker = newMarker();
    let aliveAtEnd: number[] = [];
    // The subshell exits at once, so the daemon is reparented: no line of parents leads to the
    // command. The command waits for the daemon's "up" (it may not even have started node yet
    // when the subshell is gone, on a loaded machine), so the next model call finds it running.
    const daemon = `(setsid ${NODE} -e '${IDLER}' ${marker} > up.log 2>&1 < /dev/null &) ; until [ -s up.log ]; do sleep 0.05; done; echo left`;
    const fake = await serve([
      call("start", "bash", { command: daemon }),
      () => {
        aliveAtEnd = pidsWith(marker);
        return { reply: { text: "left it running" } };
      },
    ]);
    const result = await runCli([...flags(fake, sandbox), "-p", "start it"]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(resultsIn(fake.requests[1]).get("start"), "left\n[exit code: 0]");
    if (sandbox === "off") assert.equal(aliveAtEnd.length, 1, "it outlived its command, while the session went on");
    await waitUntil("the daemon to go after the session", () => pidsWith(marker).length === 0);
  });

  for (const signal of ["SIGINT", "SIGTERM", "SIGKILL"] as const) {
    test(`sandbox ${sandbox}: ${signal} to the harness mid-run ends its background processes`, { skip }, async () => {
      const marker = newMarker();
      const fake = await serve([
        call("start", "bash", { command: nodeCommand(IDLER, marker), background: true }),
        { hang: true },
      ]);
      let child: ChildProcess | undefined;
      const run = runCli([...flags(fake, sandbox), "-p", "start it"], { onSpawn: (spawned) => (child = spawned) });
      await waitUntil("the request after the start", () => fake.requests.length >= 2);
      assert.equal(pidsWith(marker).length, 1, "running while the harness waits for the model");
      child?.kill(signal);
      const result = await run;
      if (signal === "SIGINT") assert.equal(result.code, 130, result.stderr);
      else assert.equal(result.signal, signal);
      // After SIGINT the session closes (and waits); after SIGTERM or SIGKILL the helper sees its stdin close.
      await waitUntil("the background process to go", () => pidsWith(marker).length === 0);
    });
  }
}

test("a background command asks like any command: refused headless without approval, and never started", async () => {
  const marker = newMarker();
  const fake = await serve([
    call("start", "bash", { command: nodeCommand(IDLER, marker), background: true }),
    { reply: { text: "ok" } },
  ]);
  const result = await runCli([...fakeFlags(fake), "--sandbox", "off", "-p", "start it"], { env: cleanEnv() });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /refused bash \(background\)> exec/);
  assert.match(resultsIn(fake.requests[1]).get("start") ?? "", /not allow/i);
  assert.deepEqual(pidsWith(marker), []);
});

test("a background start answers with the first lines while the process goes on", async () => {
  const marker = newMarker();
  const fake = await serve([
    call("start", "bash", { command: `seq 1 30; ${nodeCommand(IDLER, marker)}`, background: true }),
    { reply: { text: "ok" } },
  ]);
  const result = await runCli([...flags(fake, "off"), "-p", "start it"]);
  assert.equal(result.code, 0, result.stderr);
  const start = resultsIn(fake.requests[1]).get("start") ?? "";
  // It answers once 20 lines have come (seq writes its 30 at once), before the idler has even said "up".
  assert.match(start, /^\[background process 1: [^\n]*\]\n1\n2\n3\n[\s\S]*\n20\n/);
  assert.match(start, /\n\[running in the background as id 1\]$/);
  assert.deepEqual(pidsWith(marker), []);
});

test("bash_output of a long output is cut like bash's, with the whole of it in a spill file", async () => {
  const fake = await serve([
    // It writes only once told to, so all of its output is in the one read.
    call("start", "bash", { command: "until [ -e go ]; do sleep 0.1; done; seq 1 100000", background: true }),
    call("go", "bash", { command: "touch go" }),
    call("read", "bash_output", { id: 1, wait: 30 }),
    call("again", "bash_output", { id: 1 }),
    call("unknown", "bash_output", { id: 7 }),
    { reply: { text: "ok" } },
  ]);
  const result = await runCli([...flags(fake, "off"), "-p", "count"]);
  assert.equal(result.code, 0, result.stderr);
  const results = resultsIn(fake.requests.at(-1) as RecordedRequest);
  const read = results.get("read") ?? "";
  assert.match(read, /^1\n2\n/);
  assert.match(read, /cut from the middle of this output/);
  assert.match(read, /\n100000\n\[exit code: 0\]$/);
  const spill = /saved in (\S+);/.exec(read)?.[1] ?? "";
  assert.ok(existsSync(spill), `spill file ${spill}`);
  assert.equal(readFileSync(spill, "utf8").split("\n").filter(Boolean).length, 100000);
  assert.equal(results.get("again"), "[exit code: 0]", "nothing new, and how it ended");
  assert.match(results.get("unknown") ?? "", /^no background process 7 \(there are: 1\)$/);
});

test("in the chat, the status line counts the running ones, /ps lists them, /ps kill stops one, /exit the rest", {
  skip: needs("tmux"),
}, async () => {
  const [first, second] = [newMarker(), newMarker()];
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "one", name: "bash", arguments: { command: nodeCommand(IDLER, first), background: true } },
          { id: "two", name: "bash", arguments: { command: nodeCommand(IDLER, second), background: true } },
        ],
      },
    },
    { reply: { text: "Both are up." } },
  ]);
  const chat = TmuxTerminal.start({
    args: ["-y", "--sandbox", "off", ...fakeFlags(fake)],
    cwd: tempDir(),
    env: { ...(cleanEnv() as Record<string, string>), TERM: "xterm-256color" },
    columns: 160,
  });
  await chat.waitFor(/^> $/m, "the prompt");
  chat.type("start both");
  chat.send(["Enter"]);
  await chat.waitFor(/Both are up\.[\s\S]* · 2 in background \(\/ps\)\n/, "the status line after the turn");
  chat.type("/ps");
  chat.send(["Enter"]);
  await chat.waitFor(/^1 {2}running {2}[0-9.ms]+ {2}exec \S+ -e .*\n2 {2}running {2}/m, "the list");
  chat.type("/ps kill 1");
  chat.send(["Enter"]);
  await chat.waitFor(/^1: killed by SIGTERM$/m, "the kill");
  assert.deepEqual(pidsWith(first), []);
  assert.equal(pidsWith(second).length, 1, "the other one runs on");
  chat.type("/ps");
  chat.send(["Enter"]);
  await chat.waitFor(/^1 {2}killed by SIGTERM {2}- {2}exec [^\n]*\n2 {2}running {2}/m, "the list after the kill");
  chat.type("/exit");
  chat.send(["Enter"]);
  await chat.waitFor(/\[exit 0\]/, "the end of the chat");
  assert.deepEqual(pidsWith(second), [], "the one left running ended with the session");
});

test("a background flood nobody reads fills its spill file only up to the cap (16 MiB), and says so", async () => {
  const fake = await serve([
    call("start", "bash", {
      command: "until [ -e go ]; do sleep 0.1; done; head -c 20000000 /dev/zero | tr '\\0' x",
      background: true,
    }),
    call("go", "bash", { command: "touch go" }),
    call("read", "bash_output", { id: 1, wait: 60 }),
    { reply: { text: "ok" } },
  ]);
  const result = await runCli([...flags(fake, "off"), "-p", "flood"]);
  assert.equal(result.code, 0, result.stderr);
  const read = resultsIn(fake.requests.at(-1) as RecordedRequest).get("read") ?? "";
  assert.match(read, /\[exit code: 0\]$/);
  const [, kept, total, spill] = /\[the first (\d+) of its (\d+) bytes are saved in (\S+);/.exec(read) ?? [];
  assert.equal(Number(kept), 16 * 1024 * 1024);
  assert.equal(Number(total), 20_000_000);
  assert.equal(statSync(spill).size, 16 * 1024 * 1024);
});

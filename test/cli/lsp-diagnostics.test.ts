// Language servers' diagnostics after edits, through the real CLI against the fake model, with the
// real typescript-language-server and pyright (devDependencies) on small projects in a temp folder:
// an edit that brings a type error gets it in its result, set apart from one already there; an
// edit that fixes it gets none; a server that never answers costs a step no more than its bound.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir, toolResultOf } from "../support/helpers.ts";
import { fakeServerDeclaration, needsServer, SERVER_BIN } from "../support/language-servers.ts";

const serve = fakeServerPerTest();
const BIN = SERVER_BIN;

/**
 * The servers found on PATH (as a user's global install would be), and a wait long enough for a
 * cold server on a loaded machine: what is asserted is what the server says, not how fast.
 */
function serverEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cleanEnv({ PATH: `${BIN}${delimiter}${process.env.PATH}`, HARNESS_LSP_WAIT_MS: "60000", ...extra });
}

/** What diagnostics a result gained: from the blank line before the note on ("" when none). */
function noteOf(result: string): string {
  const at = result.search(/\n\n\w+ diagnostics for /);
  return at < 0 ? "" : result.slice(at + 2);
}

const edit = (id: string, path: string, old_string: string, new_string: string) => ({
  reply: { toolCalls: [{ id, name: "edit_file", arguments: { path, old_string, new_string } }] },
});

test("TypeScript: a new type error is in the edit's (and a command's) result, apart from one already there; a fix brings none", {
  skip: needsServer("typescript-language-server"),
}, async () => {
  const cwd = tempDir("harness-lsp-ts-");
  writeFileSync(join(cwd, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }));
  mkdirSync(join(cwd, "src"));
  writeFileSync(join(cwd, "src", "a.ts"), "export const count: number = 1;\n");
  writeFileSync(join(cwd, "src", "b.ts"), 'export const old: number = "was here";\nexport const next = 2;\n');
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          { id: "read-a", name: "read_file", arguments: { path: "src/a.ts" } },
          { id: "read-b", name: "read_file", arguments: { path: "src/b.ts" } },
        ],
      },
    },
    edit("break", "src/a.ts", "= 1;", '= "one";'),
    edit("fix", "src/a.ts", '= "one";', "= 1;"),
    edit("add", "src/b.ts", "export const next = 2;", "export const next: string = 2;"),
    // A command that changes a file: its result carries the error, apart from what was there.
    {
      reply: {
        toolCalls: [{ id: "sed", name: "bash", arguments: { command: "sed -i 's/= 1;/= true;/' src/a.ts" } }],
      },
    },
    { reply: { text: "done" } },
  ]);
  const run = await runCli([...fakeFlags(fake), "-y", "-p", "change the files"], { env: serverEnv(), cwd });
  assert.equal(run.code, 0, run.stderr);

  assert.equal(
    noteOf(toolResultOf(fake, 2, "break")),
    [
      "typescript diagnostics for src/a.ts:",
      "new with this edit: 1 error",
      "  line 1: error: Type 'string' is not assignable to type 'number'.",
    ].join("\n"),
  );
  assert.equal(noteOf(toolResultOf(fake, 3, "fix")), "");
  assert.equal(
    noteOf(toolResultOf(fake, 4, "add")),
    [
      "typescript diagnostics for src/b.ts:",
      "new with this edit: 1 error",
      "  line 2: error: Type 'number' is not assignable to type 'string'.",
      "already there before it: 1 error",
      "  line 1: error: Type 'string' is not assignable to type 'number'.",
    ].join("\n"),
  );
  assert.equal(
    noteOf(toolResultOf(fake, 5, "sed")),
    [
      "typescript diagnostics for src/a.ts:",
      "new with this command: 1 error",
      "  line 1: error: Type 'boolean' is not assignable to type 'number'.",
    ].join("\n"),
  );
  assert.doesNotMatch(run.stderr, /lsp:/, "nothing went wrong to tell the user");
});

test("Python: pyright's error is in the edit's result, and a fix brings none", {
  skip: needsServer("pyright-langserver"),
}, async () => {
  const cwd = tempDir("harness-lsp-py-");
  writeFileSync(join(cwd, "main.py"), "count: int = 1\n");
  const fake = await serve([
    { reply: { toolCalls: [{ id: "read", name: "read_file", arguments: { path: "main.py" } }] } },
    edit("break", "main.py", "= 1", '= "one"'),
    edit("fix", "main.py", '= "one"', "= 1"),
    { reply: { text: "done" } },
  ]);
  const run = await runCli([...fakeFlags(fake), "-y", "-p", "change main.py"], { env: serverEnv(), cwd });
  assert.equal(run.code, 0, run.stderr);
  const broken = toolResultOf(fake, 2, "break");
  assert.match(
    broken,
    /\n\npyright diagnostics for main\.py:\nnew with this edit: 1 error\n {2}line 1: error: Type "Literal\['one'\]" is not assignable to declared type "int"/,
  );
  assert.equal(noteOf(toolResultOf(fake, 3, "fix")), "");
});

test("a server that never answers holds an edit no longer than the wait's bound, and is told to the user, not the model", async () => {
  const cwd = tempDir("harness-lsp-hung-");
  const bin = tempDir("harness-lsp-bin-");
  // Reads what it is sent and never answers: not even `initialize`.
  const hung = join(bin, "typescript-language-server");
  writeFileSync(hung, `#!${process.execPath}\nprocess.stdin.resume();\nsetInterval(() => {}, 1000);\n`, {
    mode: 0o755,
  });
  writeFileSync(join(cwd, "a.ts"), "export const count = 1;\n");
  // A TypeScript beside it, as an install has: without one, an untrusted folder does not start it.
  mkdirSync(join(bin, "node_modules", "typescript", "lib"), { recursive: true });
  writeFileSync(join(bin, "node_modules", "typescript", "lib", "tsserver.js"), "");
  const fake = await serve([
    { reply: { toolCalls: [{ id: "read", name: "read_file", arguments: { path: "a.ts" } }] } },
    edit("first", "a.ts", "= 1", "= 2"),
    edit("second", "a.ts", "= 2", "= 3"),
    { reply: { text: "done" } },
  ]);
  const env = cleanEnv({ PATH: `${bin}${delimiter}${process.env.PATH}`, HARNESS_LSP_WAIT_MS: "1500" });
  const started = Date.now();
  const run = await runCli([...fakeFlags(fake), "-y", "-p", "edit a.ts"], { env, cwd });
  assert.equal(run.code, 0, run.stderr);
  // Liveness only: a step held by the server would reach runCli's own 90 s limit.
  assert.ok(Date.now() - started < 60_000, `took ${Date.now() - started} ms`);
  assert.match(toolResultOf(fake, 2, "first"), /^Edited a\.ts \(1 replacement\):\n[\s\S]*\+export const count = 2;\n$/);
  assert.match(
    toolResultOf(fake, 3, "second"),
    /^Edited a\.ts \(1 replacement\):\n[\s\S]*\+export const count = 3;\n$/,
  );
  assert.match(
    run.stderr,
    /lsp: typescript \(.*typescript-language-server\) did not start: initialize got no answer within 1500 ms/,
  );
  assert.equal(run.stderr.match(/lsp:/g)?.length, 1, `told once:\n${run.stderr}`);
});

test("a server declared in settings.json's lspServers (Claude Code's .lsp.json shape) runs in a trusted folder only", async () => {
  const cwd = tempDir("harness-lsp-declared-");
  const marker = join(tempDir("harness-lsp-marker-"), "started");
  writeFileSync(join(cwd, "notes.fk"), "fine\n");
  mkdirSync(join(cwd, ".harness"));
  writeFileSync(
    join(cwd, ".harness", "settings.json"),
    JSON.stringify({
      lspServers: {
        fake: fakeServerDeclaration({ FAKE_LSP_MARKER: marker }, { startupTimeout: 5000 }),
      },
    }),
  );
  const turn = [
    { reply: { toolCalls: [{ id: "read", name: "read_file", arguments: { path: "notes.fk" } }] } },
    edit("break", "notes.fk", "fine", "BAD"),
    { reply: { text: "done" } },
  ];
  const untrustedFake = await serve(turn);
  const untrusted = await runCli([...fakeFlags(untrustedFake), "-y", "-p", "edit"], { env: serverEnv(), cwd });
  assert.equal(untrusted.code, 0, untrusted.stderr);
  assert.equal(noteOf(toolResultOf(untrustedFake, 2, "break")), "");
  assert.ok(!existsSync(marker), "the untrusted folder's server never started");
  const notStarted = /\.harness\/settings\.json: lspServers fake not started: this folder is not trusted/g;
  assert.equal(untrusted.stderr.match(notStarted)?.length, 1, untrusted.stderr);

  writeFileSync(join(cwd, "notes.fk"), "fine\n");
  const trustedFake = await serve(turn);
  const trusted = await runCli([...fakeFlags(trustedFake), "--trust", "-y", "-p", "edit"], { env: serverEnv(), cwd });
  assert.equal(trusted.code, 0, trusted.stderr);
  assert.equal(
    noteOf(toolResultOf(trustedFake, 2, "break")),
    "fake diagnostics for notes.fk:\nnew with this edit: 1 error\n  line 1: error: BAD is not allowed",
  );
  assert.ok(existsSync(marker));
  assert.match(trusted.stderr, /\.harness\/settings\.json: lspServers\.fake: harness does not use startupTimeout/);
});

test("a server that crashes is started again once: the edit it crashed on gets nothing, the next one its diagnostics", async () => {
  const cwd = tempDir("harness-lsp-crash-");
  const flags = tempDir("harness-lsp-flags-");
  const env = serverEnv({ HARNESS_LSP_WAIT_MS: "30000" });
  writeFileSync(join(cwd, "notes.fk"), "fine\n");
  writeFileSync(
    join(env.HARNESS_HOME as string, "settings.json"),
    JSON.stringify({
      lspServers: {
        fake: fakeServerDeclaration({
          FAKE_LSP_MARKER: join(flags, "started"),
          FAKE_LSP_CRASH_ONCE: join(flags, "crashed"),
        }),
      },
    }),
  );
  const fake = await serve([
    { reply: { toolCalls: [{ id: "read", name: "read_file", arguments: { path: "notes.fk" } }] } },
    edit("crash", "notes.fk", "fine", "BAD"),
    edit("again", "notes.fk", "BAD", "BAD\nBAD"),
    { reply: { text: "done" } },
  ]);
  const run = await runCli([...fakeFlags(fake), "-y", "-p", "edit"], { env, cwd });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(noteOf(toolResultOf(fake, 2, "crash")), "");
  assert.equal(
    noteOf(toolResultOf(fake, 3, "again")),
    [
      "fake diagnostics for notes.fk:",
      "new with this edit: 1 error",
      "  line 2: error: BAD is not allowed",
      "already there before it: 1 error",
      "  line 1: error: BAD is not allowed",
    ].join("\n"),
  );
  assert.equal(
    readFileSync(join(flags, "started"), "utf8"),
    "started\nstarted\n",
    "started twice: once, then once again",
  );
  assert.match(run.stderr, /lsp: fake stopped \(.*\); it will be started again on the next file/);
});

test("a flooding server stays bounded: 20,000 diagnostics give the model five and a count; an endless message is cut off", async () => {
  const cwd = tempDir("harness-lsp-flood-");
  const env = serverEnv({ HARNESS_LSP_WAIT_MS: "30000" });
  const run = async (flood: string) => {
    writeFileSync(join(cwd, "notes.fk"), "fine\n");
    writeFileSync(
      join(env.HARNESS_HOME as string, "settings.json"),
      JSON.stringify({ lspServers: { fake: fakeServerDeclaration({ FAKE_LSP_FLOOD: flood }) } }),
    );
    const fake = await serve([
      { reply: { toolCalls: [{ id: "read", name: "read_file", arguments: { path: "notes.fk" } }] } },
      edit("flood", "notes.fk", "fine", "BAD"),
      { reply: { text: "done" } },
    ]);
    const result = await runCli([...fakeFlags(fake), "-y", "-p", "edit"], { env, cwd });
    assert.equal(result.code, 0, result.stderr);
    return { note: noteOf(toolResultOf(fake, 2, "flood")), stderr: result.stderr };
  };
  const many = await run("many");
  // The server sent 20,000 (on every other line); harness keeps 500 per file and lists five of them.
  assert.equal(
    many.note,
    [
      "fake diagnostics for notes.fk:",
      "new with this edit: 500 errors",
      ...[1, 3, 5, 7, 9].map((line) => `  line ${line}: error: BAD is not allowed`),
      "  ... and 495 more",
    ].join("\n"),
  );
  const huge = await run("huge");
  assert.equal(huge.note, "", "no diagnostics, and the edit went on");
  assert.match(huge.stderr, /lsp: fake stopped \(.*\)/, "the user is told the server was cut off");
});

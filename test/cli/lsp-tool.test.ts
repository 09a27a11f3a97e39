// The lsp tool, through the real CLI against the fake model, with the real typescript-language-server
// and pyright (devDependencies) on small projects: definition, references, hover, a file's and the
// workspace's symbols and a file's diagnostics, each answer compact with paths relative to the
// workspace; offered where a server can run and has files to serve, not elsewhere.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir, toolResultOf } from "../support/helpers.ts";
import { needsServer, SERVER_BIN } from "../support/language-servers.ts";

const serve = fakeServerPerTest();
const BIN = SERVER_BIN;

/** Servers on PATH, and a wait long enough for a cold server on a loaded machine (what is asserted is the answer). */
const serverEnv = () => cleanEnv({ PATH: `${BIN}${delimiter}${process.env.PATH}`, HARNESS_LSP_WAIT_MS: "90000" });

const lsp = (id: string, args: Record<string, unknown>) => ({ id, name: "lsp", arguments: args });
const toolNames = (request: { body: { tools?: Array<{ function: { name: string } }> } }) =>
  (request.body.tools ?? []).map((tool) => tool.function.name);

test("TypeScript: definition, references, hover, symbols and diagnostics, paths relative to the workspace", {
  skip: needsServer("typescript-language-server"),
}, async () => {
  const cwd = tempDir("harness-lsp-tool-ts-");
  writeFileSync(join(cwd, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }));
  mkdirSync(join(cwd, "src"));
  writeFileSync(
    join(cwd, "src", "greet.ts"),
    'export function greet(name: string): string {\n  return "hello " + name;\n}\n\nexport class Greeter {\n  hello(): string {\n    return greet("you");\n  }\n}\n',
  );
  writeFileSync(
    join(cwd, "src", "main.ts"),
    'import { greet } from "./greet";\n\nexport const message: string = greet("world");\nexport const wrong: number = greet("x");\n',
  );
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          lsp("def", { operation: "goToDefinition", path: "src/main.ts", line: 3, symbol: "greet" }),
          lsp("refs", { operation: "findReferences", path: "src/greet.ts", line: 1, character: 17 }),
          lsp("hover", { operation: "hover", path: "src/main.ts", line: 3, symbol: "message" }),
          lsp("outline", { operation: "documentSymbol", path: "src/greet.ts" }),
          lsp("search", { operation: "workspaceSymbol", query: "Greeter", path: "src/main.ts" }),
          lsp("problems", { operation: "diagnostics", path: "src/main.ts" }),
          lsp("bad-line", { operation: "hover", path: "src/main.ts", line: 99 }),
        ],
      },
    },
    { reply: { text: "done" } },
  ]);
  const run = await runCli([...fakeFlags(fake), "-p", "look around"], { env: serverEnv(), cwd });
  assert.equal(run.code, 0, run.stderr);
  assert.ok(toolNames(fake.requests[0]).includes("lsp"), "offered: a TypeScript project, the server installed");
  assert.equal(
    toolResultOf(fake, 1, "def"),
    "Defined at:\nsrc/greet.ts:1:17: export function greet(name: string): string {",
  );
  assert.equal(
    toolResultOf(fake, 1, "refs"),
    [
      "5 references in 2 files:",
      "src/greet.ts:1:17: export function greet(name: string): string {",
      'src/greet.ts:7:12: return greet("you");',
      'src/main.ts:1:10: import { greet } from "./greet";',
      'src/main.ts:3:32: export const message: string = greet("world");',
      'src/main.ts:4:30: export const wrong: number = greet("x");',
    ].join("\n"),
  );
  assert.equal(toolResultOf(fake, 1, "hover"), "const message: string");
  assert.equal(
    toolResultOf(fake, 1, "outline"),
    "function greet (line 1)\nclass Greeter (line 5)\n  method hello (line 6)",
  );
  assert.equal(toolResultOf(fake, 1, "search"), "class Greeter src/greet.ts:5:1: export class Greeter {");
  assert.equal(
    toolResultOf(fake, 1, "problems"),
    "src/main.ts:4:14: error: Type 'string' is not assignable to type 'number'. (2322)",
  );
  assert.match(toolResultOf(fake, 1, "bad-line"), /line 99 is past the end: the file has 5 lines/);
});

test("Python: pyright answers definition, hover and symbols; a folder without such files gets no lsp tool", {
  skip: needsServer("pyright-langserver"),
}, async () => {
  const cwd = tempDir("harness-lsp-tool-py-");
  writeFileSync(
    join(cwd, "shapes.py"),
    "class Square:\n    def area(self, side: int) -> int:\n        return side * side\n",
  );
  writeFileSync(join(cwd, "main.py"), "from shapes import Square\n\nprint(Square().area(3))\n");
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          lsp("def", { operation: "goToDefinition", path: "main.py", line: 3, symbol: "area" }),
          lsp("hover", { operation: "hover", path: "main.py", line: 3, symbol: "area" }),
          lsp("outline", { operation: "documentSymbol", path: "shapes.py" }),
        ],
      },
    },
    { reply: { text: "done" } },
  ]);
  const run = await runCli([...fakeFlags(fake), "-p", "look"], { env: serverEnv(), cwd });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(toolResultOf(fake, 1, "def"), "Defined at:\nshapes.py:2:9: def area(self, side: int) -> int:");
  assert.equal(toolResultOf(fake, 1, "hover"), "(method) def area(side: int) -> int");
  assert.equal(
    toolResultOf(fake, 1, "outline"),
    "class Square (line 1)\n  method area (line 2)\n    variable side (line 2)",
  );

  const empty = tempDir("harness-lsp-tool-none-");
  writeFileSync(join(empty, "notes.md"), "# nothing to check\n");
  const none = await serve([{ reply: { text: "ok" } }]);
  const plain = await runCli([...fakeFlags(none), "-p", "hi"], { env: serverEnv(), cwd: empty });
  assert.equal(plain.code, 0, plain.stderr);
  assert.ok(!toolNames(none.requests[0]).includes("lsp"), "no file a server serves: no lsp tool");
  assert.ok(toolNames(none.requests[0]).includes("read_file"));
});

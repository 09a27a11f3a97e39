// `tool_output` in `--output stream-json`: a running command's last lines, sent while it runs,
// bounded in number for a flood, valid against the documented schema, and never carrying a key,
// whole or in part, even one the command prints in two pieces with a pause between them (the
// first piece alone must not go out). Each phase of the command waits for a file the test writes
// once it saw the events of the phase before, so nothing depends on timing.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { cleanEnv, fakeFlags, fakeServerPerTest, jsonLines, ROOT, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();
/** The harness's own key: a command can print it (from a file), and it must not leave in any event. */
const KEY = "canary-Zx81Qw7Lm0pK4vB2Yt5";
const KEY_HALVES = [KEY.slice(0, 11), KEY.slice(11)];
/** A key shape the redactor knows, printed in two pieces too. */
const SHAPED = "sk-proj-4fG7hJ2kL9mN3pQ8rS1tV6wX";
const waitFor = (file: string) => `while [ ! -f ${file} ]; do sleep 0.05; done`;

test("stream-json carries a running command's last lines as tool_output, few for a flood, and no key even when printed in pieces", async () => {
  // The pieces come from files, so they are in no tool call's arguments either.
  const command = [
    "seq 1 200000 | sed 's/^/flood-/'",
    `printf 'begun '; head -c ${KEY_HALVES[0].length} key.txt`,
    waitFor("go1"),
    `tail -c +${KEY_HALVES[0].length + 1} key.txt; printf ' and '; head -c 12 shaped.txt`,
    waitFor("go2"),
    "tail -c +13 shaped.txt; printf '\\nafter it\\n'",
    waitFor("go3"),
  ].join("; ");
  const fake = await serve([
    { reply: { toolCalls: [{ id: "b1", name: "bash", arguments: { command } }] } },
    { reply: { text: "done" } },
  ]);
  const cwd = tempDir();
  writeFileSync(join(cwd, "key.txt"), KEY);
  writeFileSync(join(cwd, "shaped.txt"), SHAPED);
  let seen = "";
  const run = await runCli([...fakeFlags(fake), "-y", "--sandbox", "off", "--output", "stream-json", "-p", "go"], {
    cwd,
    env: cleanEnv({ OPENAI_API_KEY: KEY }),
    onSpawn(child) {
      child.stdout?.on("data", (chunk) => {
        seen += chunk;
        if (/"type":"tool_output".*begun/.test(seen)) writeFileSync(join(cwd, "go1"), "", { flag: "a" });
        if (/"type":"tool_output".*begun \[redacted\] and/.test(seen))
          writeFileSync(join(cwd, "go2"), "", { flag: "a" });
        if (/"type":"tool_output".*after it/.test(seen)) writeFileSync(join(cwd, "go3"), "", { flag: "a" });
      });
    },
  });
  assert.equal(run.code, 0, run.stderr);
  const events = jsonLines(run.stdout);
  const validate = new Ajv2020({ strict: false }).compile(
    JSON.parse(readFileSync(join(ROOT, "docs", "events.schema.json"), "utf8")),
  );
  for (const event of events) assert.ok(validate(event), JSON.stringify([event, validate.errors]));

  const live = events.filter((event) => event.type === "tool_output");
  const end = events.findIndex((event) => event.type === "tool_end");
  assert.ok(live.length >= 2, run.stdout);
  assert.ok(events.lastIndexOf(live.at(-1)) < end, "no tool_output after the call's tool_end");
  for (const event of live) {
    assert.equal(event.id, "b1");
    assert.ok(event.lines.length <= 5, JSON.stringify(event));
  }
  // 200000 lines printed, but only a few events: one per quarter second at most, and only on a change.
  assert.ok(live.length < 200, `${live.length} tool_output events for a flood`);
  const shown = live.find((event) => event.lines.some((line: string) => line.startsWith("begun")));
  assert.ok(shown, run.stdout);
  assert.equal(shown.lines.at(-1), "begun ", "the key's first piece is held back until it is whole");
  const joined = live.find((event) => event.lines.some((line: string) => line.startsWith("begun [redacted] and")));
  assert.equal(joined.lines.at(-1), "begun [redacted] and ", "the shaped key's start is held back too");
  const after = live.find((event) => event.lines.includes("after it"));
  assert.match(after.lines.join("\n"), /^begun \[redacted\] and \[redacted\]$/m, JSON.stringify(after));

  for (const piece of [...KEY_HALVES, SHAPED.slice(0, 12), SHAPED.slice(12)])
    assert.ok(!run.stdout.includes(piece), `a piece of a key (${piece}) left in the stream`);
});

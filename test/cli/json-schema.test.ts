// `--json-schema`: the answer as data. On every wire API's strict fake the model answers in prose
// first (one reminder), then with an answer the schema refuses (sent back with the errors), then a
// valid one, which is the run's output; and the ways a run gets no valid answer, which exit 1.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { replyOf, runOn, TARGETS, workspace } from "../support/provider-targets.ts";

const serve = fakeServerPerTest();

const SCHEMA = {
  type: "object",
  properties: {
    files: { type: "integer", exclusiveMinimum: 0, description: "how many files" },
    verdict: { type: "string", enum: ["ok", "broken"] },
  },
  required: ["files", "verdict"],
  additionalProperties: false,
};

for (const key of ["openai", "responses", "anthropic", "gemini"]) {
  test(`${TARGETS[key].label}: prose gets a reminder, a wrong answer its errors, a valid one ends the run`, async () => {
    const target = TARGETS[key];
    const place = workspace();
    const call = (n: number, args: Record<string, unknown>) => ({
      id: target.id(n),
      name: "final_answer",
      arguments: args,
    });
    const fake = await serve([
      replyOf(target, { text: "There are two files and they look fine." }),
      replyOf(target, { toolCalls: [call(1, { files: "two", verdict: "ok", note: "x" })] }),
      replyOf(target, { toolCalls: [call(2, { files: 2, verdict: "ok" })] }),
    ]);
    const result = await runOn(target, fake, place, [
      "--json-schema",
      JSON.stringify(SCHEMA),
      "--output",
      "json",
      "-p",
      "count",
    ]);
    assert.equal(result.code, 0, result.stderr);
    const done = JSON.parse(result.stdout);
    assert.deepEqual(done.structured_output, { files: 2, verdict: "ok" });
    assert.deepEqual(JSON.parse(done.answer), { files: 2, verdict: "ok" });
    assert.equal(done.turns, 3);
    const [first, second, third] = fake.requests.map((request) => JSON.stringify(request.body));
    // The tool is offered with the schema converted as every tool's is: exclusiveMinimum 0 on an integer is minimum 1.
    assert.match(first, /final_answer/);
    assert.doesNotMatch(first, /exclusiveMinimum/);
    assert.match(second, /must be given by calling the final_answer tool/);
    assert.match(third, /the answer at \/files must be integer/);
    assert.match(third, /must NOT have additional properties/);
  });
}

test("text output is the answer's JSON; no valid answer after three tries, or prose twice, exits 1 saying why", async () => {
  const target = TARGETS.anthropic;
  const place = workspace();
  const schemaFile = join(tempDir(), "schema.json");
  writeFileSync(schemaFile, JSON.stringify(SCHEMA));
  const call = (n: number, args: Record<string, unknown>) => ({
    id: target.id(n),
    name: "final_answer",
    arguments: args,
  });
  const good = await serve([replyOf(target, { toolCalls: [call(1, { files: 1, verdict: "broken" })] })]);
  const printed = await runOn(target, good, place, ["--output-schema", `@${schemaFile}`, "-p", "count"]);
  assert.equal(printed.code, 0, printed.stderr);
  assert.deepEqual(JSON.parse(printed.stdout), { files: 1, verdict: "broken" });

  const wrong = await serve(
    [1, 2, 3].map((n) => replyOf(target, { toolCalls: [call(n, { files: 0, verdict: "ok" })] })),
  );
  const failed = await runOn(target, wrong, place, ["--json-schema", `@${schemaFile}`, "-p", "count"]);
  assert.equal(failed.code, 1);
  assert.equal(failed.stdout, "");
  assert.match(failed.stderr, /no valid answer after 3 tries; the last one: the answer at \/files must be > 0/);

  const prose = await serve([replyOf(target, { text: "two" }), replyOf(target, { text: "still two" })]);
  const chatty = await runOn(target, prose, place, ["--json-schema", `@${schemaFile}`, "-p", "count"]);
  assert.equal(chatty.code, 1);
  assert.equal(chatty.stdout, "");
  assert.match(chatty.stderr, /the model answered in prose again, not with final_answer/);
});

test("a schema that is not JSON Schema, or not an object at the top, is a usage error naming the place", async () => {
  const cwd = tempDir();
  const bad = await runCli(["--json-schema", '{"type":"object","properties":{"n":{"type":"integr"}}}', "-p", "x"], {
    cwd,
  });
  assert.equal(bad.code, 2);
  assert.match(
    bad.stderr,
    /--json-schema: the schema is not valid JSON Schema: \/properties\/n\/type must be equal to one of the allowed values/,
  );
  const typo = await runCli(["--json-schema", '{"type":"object","propertes":{}}', "-p", "x"], { cwd });
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /unknown keyword: "propertes"/);
  const list = await runCli(["--json-schema", '{"type":"array"}', "-p", "x"], { cwd });
  assert.equal(list.code, 2);
  assert.match(list.stderr, /top level must be \{"type": "object"/);
});

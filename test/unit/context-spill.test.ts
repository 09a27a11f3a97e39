// Output spill: a tool output over the cap reaches the model cut (head and tail) with the path of
// a file holding all of it, which the model then reads in pages with read_file.
import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { z } from "zod";
import { runAgent } from "../../src/core/agent.ts";
import type { AgentEvent } from "../../src/core/events.ts";
import { MAX_TOOL_RESULT_BYTES } from "../../src/core/output-spill.ts";
import { defineTool } from "../../src/core/tool.ts";
import { bash } from "../../src/tools/commands/bash.ts";
import { MAX_OUTPUT_BYTES } from "../../src/tools/output-limit.ts";
import { readFile } from "../../src/tools/read-file.ts";
import { type FakeLLM, type RecordedRequest, type ScriptStep, startFakeLLM } from "../support/fake-llm/server.ts";
import { drain, fakeOpenAIProvider, tempDir } from "../support/helpers.ts";

let server: FakeLLM;
afterEach(async () => {
  assert.deepEqual(server.errors, [], "the fake server saw protocol errors");
  await server.close();
});

/** 800000 numbered lines: 5.3 MB. */
const LINES = 800_000;
const SPILL_PATH = /saved in (\S+\.txt);/;

const lastToolContent = (request: RecordedRequest): string => request.body.messages.at(-1).content;

test("a 5 MB bash output is spilled to the session folder and read back in pages", async () => {
  const spillDir = join(tempDir(), "sessions", "abc", "spill");
  const seen: Record<string, string> = {};
  const readPage =
    (offset: number, limit: number, key: string): ScriptStep =>
    (request) => {
      seen[key] = lastToolContent(request);
      const path = SPILL_PATH.exec(seen.bash)?.[1] ?? "missing";
      return {
        reply: { toolCalls: [{ id: `call_read_${offset}`, name: "read_file", arguments: { path, offset, limit } }] },
      };
    };
  server = await startFakeLLM([
    { reply: { toolCalls: [{ id: "call_seq", name: "bash", arguments: { command: `seq 1 ${LINES}` } }] } },
    readPage(400_000, 3, "bash"),
    readPage(LINES - 1, 10, "middle"),
    (request) => {
      seen.end = lastToolContent(request);
      return { reply: { text: "done" } };
    },
  ]);
  const { result, events } = await drain(
    runAgent({
      provider: fakeOpenAIProvider(server),
      tools: [bash, readFile],
      system: "s",
      cwd: tempDir(),
      messages: [],
      prompt: "go",
      toolContext: { spillDir },
    }),
  );
  assert.equal(result.answer, "done");

  // The model got head, tail and the path; the file holds every byte.
  const path = join(spillDir, "call_seq.txt");
  const full = Array.from({ length: LINES }, (_, i) => `${i + 1}\n`).join("");
  assert.match(seen.bash, /^1\n2\n3\n/);
  assert.match(seen.bash, new RegExp(`${LINES - 1}\\n${LINES}\\n\\[exit code: 0\\]$`));
  assert.ok(
    seen.bash.includes(
      `[the full output (${full.length} bytes) is saved in ${path}; read it in pages with read_file (offset, limit)`,
    ),
  );
  assert.ok(Buffer.byteLength(seen.bash) < MAX_OUTPUT_BYTES + 1000);
  assert.equal(statSync(path).size, full.length);
  assert.equal(readFileSync(path, "utf8"), full);

  // Pages: the middle, then the end.
  assert.equal(
    seen.middle,
    "400000\t400000\n400001\t400001\n400002\t400002\n[showing lines 400000-400002; call again with offset=400003 to read more]",
  );
  assert.equal(seen.end, `799999\t799999\n800000\t800000\n[showing lines 799999-800000 of 800000]`);
  // What the session would record (tool_end and message events) is the cut content, not 5 MB.
  const biggest = Math.max(...events.map((e: AgentEvent) => JSON.stringify(e).length));
  assert.ok(biggest < MAX_OUTPUT_BYTES + 2000, `an event of ${biggest} bytes`);
});

test("an output long in lines but small in bytes is spilled whole too", async () => {
  const spillDir = join(tempDir(), "spill");
  server = await startFakeLLM([
    { reply: { toolCalls: [{ id: "call_lines", name: "bash", arguments: { command: "seq 1 5000" } }] } },
    { reply: { text: "done" } },
  ]);
  await drain(
    runAgent({
      provider: fakeOpenAIProvider(server),
      tools: [bash],
      system: "s",
      cwd: tempDir(),
      messages: [],
      prompt: "go",
      toolContext: { spillDir },
    }),
  );
  const content = lastToolContent(server.requests[1]);
  assert.match(
    content,
    /lines \(\d+ bytes\) cut from the middle of this output \.\.\.\]\n\[the full output \(\d+ bytes\) is saved in /,
  );
  assert.equal(
    readFileSync(join(spillDir, "call_lines.txt"), "utf8"),
    Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join(""),
  );
});

test("any tool's over-long result is cut and spilled by the loop; repeated call ids get their own files", async () => {
  const spillDir = join(tempDir(), "spill");
  const big = defineTool({
    name: "big",
    description: "Returns a lot.",
    kind: "read",
    input: z.object({ tag: z.string() }),
    run: async ({ tag }) => `${tag}:start\n${"y".repeat(200_000)}\n${tag}:end`,
  });
  const call = (tag: string): ScriptStep => ({
    reply: { toolCalls: [{ id: "call_1", name: "big", arguments: { tag } }] },
  });
  server = await startFakeLLM([call("first"), call("second"), { reply: { text: "done" } }]);
  await drain(
    runAgent({
      provider: fakeOpenAIProvider(server),
      tools: [big],
      system: "s",
      cwd: tempDir(),
      messages: [],
      prompt: "go",
      toolContext: { spillDir },
    }),
  );

  const first = lastToolContent(server.requests[1]);
  const second = lastToolContent(server.requests[2]);
  assert.ok(Buffer.byteLength(first) < MAX_TOOL_RESULT_BYTES);
  assert.match(first, /^first:start\n/);
  assert.match(first, /\nfirst:end\n\[the full output \(200022 bytes\) is saved in .*call_1\.txt; /);
  assert.match(second, /\nsecond:end\n\[the full output \(200024 bytes\) is saved in .*call_1-2\.txt; /);
  assert.equal(readFileSync(join(spillDir, "call_1.txt"), "utf8"), `first:start\n${"y".repeat(200_000)}\nfirst:end`);
  assert.equal(
    readFileSync(join(spillDir, "call_1-2.txt"), "utf8"),
    `second:start\n${"y".repeat(200_000)}\nsecond:end`,
  );
});

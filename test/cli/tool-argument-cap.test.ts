// One tool call with arguments past the cap (MAX_TOOL_ARGUMENT_CHARS): the call fails before its
// arguments are parsed, with a message the model can act on, and nothing is written. The built
// CLI against the fake model, streaming the arguments in pieces as a real server does.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { MAX_TOOL_ARGUMENT_CHARS } from "../../src/core/run-tools.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();

test("a write_file call whose arguments pass the cap is refused unread; one under it runs", async () => {
  const fake = await serve([
    {
      reply: {
        toolCalls: [
          {
            id: "big",
            name: "write_file",
            arguments: { path: "big.txt", content: "x".repeat(MAX_TOOL_ARGUMENT_CHARS) },
          },
          { id: "small", name: "write_file", arguments: { path: "small.txt", content: "fits\n" } },
        ],
        chunkSize: 4096,
      },
    },
    { reply: { text: "done" } },
  ]);
  const cwd = tempDir();
  const result = await runCli([...fakeFlags(fake), "-y", "-p", "write it"], { cwd, env: cleanEnv() });
  assert.equal(result.code, 0, result.stderr);
  const results = fake.requests[1].body.messages.filter((m: { role: string }) => m.role === "tool");
  assert.equal(
    results[0].content,
    "Error: the write_file call was not run: its arguments are longer than 2 MiB, the most one call may carry, so they were not read. Send large content in parts: several calls, each well under the cap.",
  );
  assert.equal(existsSync(join(cwd, "big.txt")), false);
  assert.equal(readFileSync(join(cwd, "small.txt"), "utf8"), "fits\n");
});

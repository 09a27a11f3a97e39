// The wire corpus stays in step: every recording has a manifest row (its origin) and an expected
// parse, and nothing is listed that is not there. New recordings only need these three entries.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { readExpectedParses, WIRE_DIR } from "../support/wire-fixtures.ts";

const RECORDING = /^(openai-chat|openai-responses|anthropic|gemini)--[a-z0-9.-]+--[a-z0-9.-]+\.(sse|json)$/;

test("every recording is named by the rule, listed in MANIFEST.md and has an expected parse", () => {
  const files = readdirSync(WIRE_DIR).filter((name) => name !== "MANIFEST.md" && name !== "expected.json");
  const rows = [
    ...readFileSync(join(WIRE_DIR, "MANIFEST.md"), "utf8").matchAll(/^\| `([^`]+\.(?:sse|json))` \|/gm),
  ].map((match) => match[1]);
  const expected = Object.keys(readExpectedParses()).filter((key) => key !== "_conventions");
  assert.ok(files.length >= 40, `found ${files.length} recordings in ${WIRE_DIR}`);
  for (const name of files) assert.match(name, RECORDING);
  assert.deepEqual([...rows].sort(), [...files].sort(), "MANIFEST.md rows = files");
  assert.deepEqual([...expected].sort(), [...files].sort(), "expected.json keys = files");
});

// A key the model splits across two replies (one before a tool call, the rest after it), from
// the attacker's side: each reply on its own holds only part of the key, which the per-reply
// redaction missed, so the session kept the key minus its first characters. Both a key by
// shape and one known only from the environment; the stream, the answer and every file under
// HARNESS_HOME (a canary home under /var/tmp) are checked. As root and as nobody.
import assert from "node:assert/strict";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, stateFiles, tempDir } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, runAs, skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();
const SHAPED_KEY = "sk-ant-api03-Zx8Kq2Lm9Np4Rs7Tv1Wy";
const ENV_KEY = "canary-value-0123456789";

/** Every piece of a key long enough to matter (6 characters), from its start, its middle and its end. */
function assertNoPieces(where: string, text: string): void {
  for (const key of [SHAPED_KEY, ENV_KEY])
    for (let at = 0; at + 6 <= key.length; at++)
      assert.ok(
        !text.includes(key.slice(at, at + 6)) || key.slice(at, at + 6) === "sk-ant",
        `${where} holds ${key.slice(at, at + 6)} of a key:\n${text.slice(0, 1500)}`,
      );
}

for (const identity of IDENTITIES) {
  test(`as ${identity}: a key split across two replies is redacted in both, in the stream and the session`, {
    skip: needs("setpriv") || skipAs(identity),
  }, async () => {
    const fake = await serve([
      {
        reply: {
          text: `Here are the keys: ${SHAPED_KEY.slice(0, 17)}`,
          toolCalls: [{ id: "t", name: "todo", arguments: { items: [{ content: "x", status: "pending" }] } }],
          chunkSize: 3,
        },
      },
      {
        reply: {
          text: `${SHAPED_KEY.slice(17)} and ${ENV_KEY.slice(0, 10)}`,
          chunkSize: 3,
          toolCalls: [{ id: "u", name: "todo", arguments: { items: [] } }],
        },
      },
      { reply: { text: `${ENV_KEY.slice(10)} end`, chunkSize: 3 } },
    ]);
    const home = canaryHomeDir("harness-split-key-");
    handTo(identity, home);
    const env = cleanEnv({ HARNESS_HOME: home, MY_SERVICE_API_KEY: ENV_KEY });
    const result = await runCli([...fakeFlags(fake), "-y", "--output", "stream-json", "-p", "show"], {
      cwd: tempDir(),
      env,
      wrap: runAs(identity),
    });
    assert.equal(result.code, 0, result.stderr);
    const texts = result.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line))
      .filter((event) => event.type === "text_delta")
      .map((event) => event.text)
      .join("");
    assert.equal(texts, "Here are the keys: [redacted][redacted] and [redacted][redacted] end");
    assertNoPieces("stdout", result.stdout);
    const files = stateFiles(home);
    assert.ok(
      files.some((file) => file.path.endsWith(".jsonl")),
      "a session was recorded",
    );
    for (const file of files) assertNoPieces(file.path, file.text);
  });
}

// Hook context rides after the person's words in the stored prompt; what shows a prompt back to
// the person splits it off (the chat's replay, the session list).
import assert from "node:assert/strict";
import { test } from "node:test";
import { hookContext, splitHookContext } from "../../src/core/hook-context.ts";
import type { Message } from "../../src/core/messages.ts";
import { paletteFor } from "../../src/ui/colors.ts";
import { replayTranscript } from "../../src/ui/transcript-replay.ts";

test("a prompt's hook context is split from the person's words, each tag named in order", () => {
  const stored = `fix the bug${hookContext("session-start-hook", "Branch: main")}${hookContext("user-prompt-submit-hook", "Ticket ABC-1\n\nmore")}`;
  assert.deepEqual(splitHookContext(stored), {
    said: "fix the bug",
    added: ["session-start-hook", "user-prompt-submit-hook"],
  });
  // The person's own text that merely mentions a tag, or ends with one not in our form, stays theirs.
  assert.deepEqual(splitHookContext("why does </session-start-hook> appear?"), {
    said: "why does </session-start-hook> appear?",
    added: [],
  });
  assert.deepEqual(splitHookContext("plain"), { said: "plain", added: [] });
});

test("a resumed chat's replay shows the person's words and names the hook context apart", () => {
  const written: string[] = [];
  const stream = { isTTY: false, columns: 80, write: (text: string) => written.push(text) > 0 };
  const out = stream as unknown as NodeJS.WriteStream;
  replayTranscript(
    [
      {
        role: "user",
        content: [{ type: "text", text: `fix the bug${hookContext("user-prompt-submit-hook", "SECRET-ISH CONTEXT")}` }],
      },
      { role: "assistant", content: [{ type: "text", text: "fixed" }], stopReason: "stop" },
    ] as Message[],
    {
      stdout: out,
      stderr: out,
      env: { NO_COLOR: "1" },
      colors: paletteFor(out, { NO_COLOR: "1" }),
      describe: () => "",
    },
  );
  const shown = written.join("");
  assert.match(shown, /> fix the bug\n {2}\+ context from user-prompt-submit-hook\n/);
  assert.doesNotMatch(shown, /SECRET-ISH CONTEXT/);
});

// Escape sequences from outside never reach the terminal: a model's reply and a command's output
// that try to write the clipboard (OSC 52), set the title (OSC 0) and clear the screen (CSI 2J),
// and a file name with a newline that tries to forge a second entry in a listing.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { showControlChars } from "../../src/shared/control-chars.ts";
import { CLI, cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();

const ATTACK = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x07\x1b[2J\x1b[3J\x1bc\x9b2J\x1bP+q\x1b\\";

test("control characters are shown as escapes: in text newlines and tabs stay, in names nothing does", () => {
  assert.equal(
    showControlChars(`before${ATTACK}after\r\nline\ttab\x08`),
    "before\\e]52;c;cm0gLXJmIH4=\\a\\e]0;pwned\\a\\e[2J\\e[3J\\ec\\u009b2J\\eP+q\\e\\after\nline\ttab\\u0008",
  );
  // Half a sequence at the end of one chunk of a stream and the rest in the next: each half is harmless.
  assert.equal(showControlChars("a\x1b") + showControlChars("]52;c;eA==\x07"), "a\\e]52;c;eA==\\a");
  assert.equal(showControlChars("evil\nname\x1b[2J.txt", ""), "evil\\nname\\e[2J.txt");
  assert.equal(showControlChars("a\tb\nc", "\n"), "a\\tb\nc");
});

test("a reply and a command's output cannot drive the terminal; a newline in a file name stays visible", {
  skip: needs("script"),
}, async (t) => {
  const cwd = tempDir();
  writeFileSync(join(cwd, "evil\nforged.txt"), "");
  writeFileSync(join(cwd, "attack.txt"), `output ${ATTACK} end\n`);
  const fake = await serve([
    {
      reply: {
        text: `working ${ATTACK} on it`,
        toolCalls: [
          { id: "call_cat", name: "bash", arguments: { command: "cat attack.txt" } },
          { id: "call_ls", name: "list_files", arguments: {} },
        ],
      },
    },
    { reply: { text: `all done ${ATTACK} here` } },
  ]);
  // On a real pseudo-terminal, so the traces (tool output) are drawn too; NO_COLOR keeps our own styling out.
  const command = [process.execPath, CLI, "-y", "--sandbox", "off", ...fakeFlags(fake), "-p", "look"]
    .map((arg) => `'${arg}'`)
    .join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    env: { ...cleanEnv(), TERM: "dumb" },
    cwd,
    stdio: ["pipe", "pipe", "pipe"],
  });
  t.after(() => child.kill("SIGKILL"));
  let screen = "";
  child.stdout.on("data", (chunk) => (screen += chunk));
  const code = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the run did not end; it showed:\n${screen}`)), 60_000);
    child.on("close", (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  assert.equal(code, 0, screen);
  assert.match(screen, /all done \\e\]52;c;cm0gLXJmIH4=\\a/, "the sequence is shown, not obeyed");
  assert.match(screen, /output .*end/, "the command's output was drawn, without its sequences");
  assert.doesNotMatch(screen, /[\x1b\x07\x9b]/, `the terminal got a control sequence:\n${JSON.stringify(screen)}`);
  assert.match(screen, /evil\\nforged\.txt/, "the name is one entry, its newline shown");
  const listing = fake.requests[1].body.messages.find((m: { tool_call_id?: string }) => m.tool_call_id === "call_ls")
    .content as string;
  assert.ok(
    listing.split("\n").some((line) => line.trim() === "evil\\nforged.txt"),
    listing,
  );
  assert.ok(!listing.split("\n").some((line) => line.trim() === "forged.txt"), "no forged entry reaches the model");
});

test("a piped one-shot answer carries no control sequences either", async () => {
  const fake = await serve([{ reply: { text: `answer ${ATTACK}!` } }]);
  const result = await runCli([...fakeFlags(fake), "-p", "hi"]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "answer \\e]52;c;cm0gLXJmIH4=\\a\\e]0;pwned\\a\\e[2J\\e[3J\\ec\\u009b2J\\eP+q\\e\\!\n");
});

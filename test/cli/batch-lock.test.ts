// One writer per results file, even when many batches start at the same instant against a lock
// left by a batch that died: exactly one takes it over, the others stop with the clear error.
// The starters are real processes released together (each waits on its stdin, and the test
// writes to all of them at once), so the race between their takeovers is a real one.
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT, tempDir } from "../support/helpers.ts";

const STARTER = join(ROOT, "test", "support", "fixtures", "batch", "lock-starter.ts");
const STARTERS = 8;
/** Rounds of the race, each against a fresh stale lock. */
const ROUNDS = 4;

interface Starter {
  child: ChildProcess;
  output: string;
  exited: Promise<void>;
}

function start(outPath: string): Starter {
  const child = spawn(process.execPath, ["--import", "tsx", STARTER, outPath], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const starter: Starter = {
    child,
    output: "",
    exited: new Promise((resolve) => child.on("exit", () => resolve())),
  };
  child.stdout?.on("data", (chunk: Buffer) => (starter.output += chunk.toString("utf8")));
  return starter;
}

async function until(isTime: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!isTime()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The pid of a process that has exited: what a batch killed by SIGKILL leaves in its lock. */
function deadPid(): number {
  const gone = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" });
  return Number(gone.stdout.trim());
}

test(`${STARTERS} batches started at once against a dead batch's lock: exactly one takes it, the others say who has it`, async () => {
  for (let round = 1; round <= ROUNDS; round++) {
    const dir = tempDir();
    const outPath = join(dir, "results.jsonl");
    writeFileSync(
      `${outPath}.lock.1`,
      JSON.stringify({ pid: deadPid(), host: hostname(), since: "2026-12-01T00:00:00.000Z" }),
    );
    const starters = Array.from({ length: STARTERS }, () => start(outPath));
    await until(() => starters.every((starter) => starter.output.startsWith("ready\n")), "every starter to be ready");
    for (const starter of starters) starter.child.stdin?.write("go\n");
    await until(() => starters.every((starter) => starter.output.split("\n").length >= 3), "every starter's answer");
    const answers = starters.map((starter) => starter.output.split("\n")[1]);
    const takers = starters.filter((_, index) => answers[index] === "took");
    assert.equal(takers.length, 1, `round ${round}: exactly one took the lock:\n${answers.join("\n")}`);
    const pid = takers[0].child.pid;
    for (const answer of answers.filter((line) => line !== "took"))
      assert.match(
        answer,
        new RegExp(
          `^refused: ${outPath.replace(/[.]/g, "\\.")} is being written by another batch \\(pid ${pid} on [^,]+, since [^)]+\\); wait for it to end, or give this one another --out$`,
        ),
        `round ${round}`,
      );
    for (const starter of starters) starter.child.stdin?.end();
    await Promise.all(starters.map((starter) => starter.exited));
    assert.deepEqual(
      readdirSync(dir).filter((name) => name.includes(".lock")),
      [],
      "the dead batch's lock was removed, and the taker's went with it",
    );
  }
});

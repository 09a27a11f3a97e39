// `harness -p ... --attempts N [--test cmd] [--pick best]`: N independent attempts at one prompt,
// each in a session worktree of its own (wiring/session-worktree.ts), all at once. Each attempt is
// a child harness as a batch task's is (batch/harness-child.ts: `--yes`, stream-json), its test
// runs as a batch task's test does (batch/shell-command.ts, in the sandbox the agent's commands
// get), and what it left uncommitted is committed on its branch, so every attempt is a branch to
// compare and merge. Then a table side by side; `--pick best` merges the best passing one.
import { alignedTable } from "../batch/batch-compare.ts";
import { bestAttempt } from "../batch/best-attempt.ts";
import { type ChildRun, currentHarnessCommand, runHarnessChild } from "../batch/harness-child.ts";
import { type CommandOutcome, runShellCommand } from "../batch/shell-command.ts";
import { wireApiName } from "../providers/wire-apis.ts";
import { removePlaceholders } from "../sandbox/protected-entries.ts";
import { newSessionId } from "../session/session-id.ts";
import { showControlChars } from "../shared/control-chars.ts";
import { loadConfigFile } from "../wiring/config-file.ts";
import { createSessionWorktree, recordWorktreeSession, type SessionWorktree } from "../wiring/session-worktree.ts";
import { commitLeftovers, type DiffSize, describeDiff, diffSince } from "../wiring/worktree-changes.ts";
import { git, WorktreeError } from "../wiring/worktree-git.ts";
import { findWorktree, mergeWorktree } from "../wiring/worktree-state.ts";
import type { CliFlags } from "./cli-args.ts";
import { commandSandboxFor, priceCallFor } from "./commands/batch-wiring.ts";

/** One attempt, finished: its worktree, run, test and what it changed against the starting commit. */
interface Attempt {
  worktree: SessionWorktree;
  run: ChildRun;
  test?: CommandOutcome;
  /** Lines added and removed, files touched (git diff --numstat against the start). */
  diff: DiffSize;
  seconds: number;
}

/** Runs the attempts and prints the comparison; returns the exit code. */
export async function runAttempts(flags: CliFlags, prompt: string, stderr: NodeJS.WritableStream): Promise<number> {
  const count = flags.attempts ?? 1;
  const base = flags.worktree || newSessionId();
  const start = git(["rev-parse", "HEAD"], process.cwd()).trim();
  const worktrees: SessionWorktree[] = [];
  try {
    for (let index = 1; index <= count; index++)
      worktrees.push(createSessionWorktree(process.cwd(), `${base}-${index}`));
  } catch (error) {
    if (!(error instanceof WorktreeError)) throw error;
    stderr.write(`harness: --attempts: ${showControlChars(error.message)}\n`);
    return 2;
  }
  stderr.write(`harness: ${count} attempts in ${worktrees.map((made) => made.branch).join(", ")}\n`);
  const config = loadConfigFile(process.env);
  const price = priceCallFor(config, flags.provider ?? process.env.HARNESS_PROVIDER ?? config.provider);
  const signal = new AbortController().signal;
  const finished = await Promise.all(
    worktrees.map(async (worktree) => {
      const began = Date.now();
      const run = await runHarnessChild({
        command: currentHarnessCommand(),
        prompt,
        flags: childFlags(flags),
        cwd: worktree.cwd,
        env: process.env,
        signal,
        price,
      });
      if (run.sessionId) recordWorktreeSession(worktree.cwd, run.sessionId);
      const test = flags.test
        ? await runShellCommand(flags.test, worktree.cwd, commandSandboxFor(process.env)(worktree.dir), signal)
        : undefined;
      return { worktree, run, test, seconds: (Date.now() - began) / 1000 };
    }),
  );
  // The tests ran sandboxed from this process, whose placeholders (an empty `.mcp.json`, ...) are
  // no attempt's work: gone before the leftovers are committed.
  removePlaceholders();
  const attempts = finished.map((attempt): Attempt => {
    commitLeftovers(attempt.worktree.dir, `harness attempt ${attempt.worktree.name}`);
    return { ...attempt, diff: diffSince(attempt.worktree.dir, start) };
  });
  process.stdout.write(comparison(attempts));
  if (flags.pick !== "best") {
    stderr.write(
      "harness: merge one with harness worktrees merge <name>; discard the rest with harness worktrees discard\n",
    );
    return attempts.some(succeeded) ? 0 : 1;
  }
  return pickBest(attempts, stderr);
}

/** Passed its test (or has none), ended done, and changed something. */
function succeeded(attempt: Attempt): boolean {
  const testPassed = attempt.test === undefined || attempt.test.exitCode === 0;
  return testPassed && attempt.run.done?.reason === "stop" && attempt.diff.files > 0;
}

/** Merges the best successful attempt (batch/best-attempt.ts says which is best). */
function pickBest(attempts: Attempt[], stderr: NodeJS.WritableStream): number {
  const best = bestAttempt(attempts, (attempt) => ({
    passed: succeeded(attempt),
    changedLines: attempt.diff.added + attempt.diff.removed,
    cost: attempt.run.done?.cost,
  }));
  if (!best) {
    stderr.write("harness: --pick best: no attempt passed with a change; nothing merged\n");
    return 1;
  }
  const outcome = mergeWorktree(process.cwd(), findWorktree(process.cwd(), best.worktree.name));
  switch (outcome.kind) {
    case "merged":
      process.stdout.write(`picked ${best.worktree.name}: merged ${best.worktree.branch}\n`);
      return 0;
    case "conflicts":
      stderr.write(
        `harness: merging ${best.worktree.branch} stopped on conflicts in ${outcome.files.map((file) => showControlChars(file)).join(", ")}; resolve them and git commit, or git merge --abort\n`,
      );
      return 1;
    case "refused":
      stderr.write(`harness: ${best.worktree.branch} not merged: ${showControlChars(outcome.reason)}\n`);
      return 1;
  }
}

/** The prompt run's flags an attempt takes (it adds `--yes` and stream-json itself). */
function childFlags(flags: CliFlags): string[] {
  const valued: Array<[string, string | number | undefined]> = [
    ["provider", flags.provider],
    ["model", flags.model],
    ["base-url", flags["base-url"]],
    ["api", flags.api && wireApiName(flags.api)],
    ["max-turns", flags["max-turns"]],
    ["max-tokens", flags["max-tokens"]],
    ["context-window", flags["context-window"]],
    ["thinking", flags.thinking === undefined ? undefined : String(flags.thinking)],
    ["request-timeout", flags["request-timeout"]],
    ["idle-timeout", flags["idle-timeout"]],
    ["sandbox", flags.sandbox],
    ["system-prompt", flags["system-prompt"]],
    ["append-system-prompt", flags["append-system-prompt"]],
  ];
  const toggles = (["trust", "allow-network", "allow-home"] as const).filter((name) => flags[name]);
  return [
    ...valued.flatMap(([name, value]) => (value === undefined ? [] : [`--${name}=${value}`])),
    ...toggles.map((name) => `--${name}`),
  ];
}

/** The attempts side by side: one row each. */
function comparison(attempts: Attempt[]): string {
  const rows = [["attempt", "branch", "result", "test", "diff", "tokens", "cost", "time"]];
  for (const { worktree, run, test, diff, seconds } of attempts) {
    const usage = run.done?.usage ?? run.spent.usage;
    const cost = run.done?.cost ?? run.spent.cost;
    rows.push([
      worktree.name,
      worktree.branch,
      run.done?.reason ?? `exit ${run.exitCode ?? run.signal}`,
      test === undefined ? "-" : test.exitCode === 0 ? "pass" : test.timedOut ? "timeout" : `fail (${test.exitCode})`,
      describeDiff(diff),
      String(usage.input + usage.output),
      cost === undefined ? "?" : `$${cost.toFixed(4)}`,
      `${seconds.toFixed(1)}s`,
    ]);
  }
  return alignedTable(rows);
}

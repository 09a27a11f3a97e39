// Everything a test starts (child processes, terminals, servers, folders) is registered here and torn
// down in afterEach/after hooks, which node's runner calls whether the test passed or failed: a failed
// assertion must never leave a child whose open pipes keep the test file, and so the suite, running.
// Cleanups run newest first, each with a bound, and their failures are reported after all have run.
import type { ChildProcess } from "node:child_process";
import { after, afterEach } from "node:test";

/** Something to undo when the test (or the file) ends. */
type Cleanup = () => void | Promise<void>;

/** Longest one cleanup may take; a cleanup that hangs is reported, and the others still run. */
const CLEANUP_LIMIT_MS = 10_000;

const atTestEnd: Cleanup[] = [];
const atFileEnd: Cleanup[] = [];

/** Runs `cleanup` after the current test, passed or failed. */
export function onTestEnd(cleanup: Cleanup): void {
  atTestEnd.push(cleanup);
}

/** Runs `cleanup` after the last test of this file (for things made at import time or in `before`). */
export function onFileEnd(cleanup: Cleanup): void {
  atFileEnd.push(cleanup);
}

/**
 * Kills `child` at the end of the test unless it has exited by then: its whole process group when it
 * was spawned `detached` (so grandchildren go too), and its pipes are closed so a grandchild holding
 * them cannot keep the test process alive.
 */
export function killAtTestEnd<Child extends ChildProcess>(child: Child, options: { group?: boolean } = {}): Child {
  onTestEnd(() => killChild(child, options.group ?? false));
  return child;
}

/** SIGKILL (the group when asked), then wait for the exit, bounded. */
export async function killChild(child: ChildProcess, group: boolean): Promise<void> {
  const running = child.exitCode === null && child.signalCode === null && child.pid !== undefined;
  const exited = running ? new Promise<void>((resolve) => child.once("exit", () => resolve())) : Promise.resolve();
  if (running) {
    try {
      process.kill(group ? -child.pid! : child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await withinLimit(exited, `child ${child.pid} (${child.spawnfile}) to exit`);
  for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
}

async function withinLimit(work: Promise<void>, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`teardown: waited ${CLEANUP_LIMIT_MS} ms for ${what}`)),
      CLEANUP_LIMIT_MS,
    );
  });
  try {
    await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}

async function runCleanups(list: Cleanup[]): Promise<void> {
  const errors: unknown[] = [];
  for (const cleanup of list.splice(0).reverse()) {
    try {
      await withinLimit(Promise.resolve().then(cleanup), "a cleanup");
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, "several cleanups failed");
}

// Hooks only under node's test runner: the benchmark imports the test helpers too, and a node:test
// hook outside a test run would make it print a test report.
const isTestRun = process.env.NODE_TEST_CONTEXT !== undefined || /\.test\.[cm]?[jt]s$/.test(process.argv[1] ?? "");
if (isTestRun) {
  afterEach(() => runCleanups(atTestEnd));
  after(() => runCleanups(atFileEnd));
}

// The workspace snapshot taken before a turn's first file-changing tool call, on a workspace of
// 10,000 files (100 folders of 100 source files of about 1 KB): the first snapshot reads and
// stores every file; later ones (same session, or a new session that starts from the newest
// index) read only what changed. Figures, not thresholds.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { WorkspaceSnapshots } from "../src/snapshots/workspace-snapshots.ts";
import { tempDir } from "../test/support/helpers.ts";

const FOLDERS = 100;
const FILES_PER_FOLDER = 100;
const CHANGED_FILES = 10;

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

export async function snapshotBench(): Promise<Record<string, number>> {
  const workspace = tempDir("harness-bench-ws-");
  const home = tempDir("harness-bench-home-");
  for (let folder = 0; folder < FOLDERS; folder++) {
    mkdirSync(join(workspace, `pkg${folder}`));
    for (let file = 0; file < FILES_PER_FOLDER; file++)
      writeFileSync(
        join(workspace, `pkg${folder}`, `mod${file}.ts`),
        `export const value${file} = ${folder};\n`.repeat(40),
      );
  }
  const change = (round: number) => {
    for (let i = 0; i < CHANGED_FILES; i++) writeFileSync(join(workspace, `pkg${i}`, "mod0.ts"), `changed ${round}\n`);
  };
  const session = new WorkspaceSnapshots(home, workspace, "bench-1");
  const first = await timed(() => session.take());
  const unchanged = await timed(() => session.take());
  change(1);
  const changed = await timed(() => session.take());
  const next = new WorkspaceSnapshots(home, workspace, "bench-2");
  change(2);
  const newSession = await timed(() => next.take());
  const restore = await timed(() => next.restore(first.value));
  return {
    first: first.ms,
    unchanged: unchanged.ms,
    changed: changed.ms,
    newSession: newSession.ms,
    restore: restore.ms,
  };
}

export function reportSnapshots(times: Record<string, number>): void {
  const ms = (value: number) => `${Math.round(value)} ms`;
  console.log(
    `workspace snapshot, ${FOLDERS * FILES_PER_FOLDER} files: first ${ms(times.first)}, next with nothing changed ${ms(times.unchanged)}, ` +
      `with ${CHANGED_FILES} changed ${ms(times.changed)}, a new session's first ${ms(times.newSession)}; restoring ${CHANGED_FILES} changed files ${ms(times.restore)}`,
  );
}

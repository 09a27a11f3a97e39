// `harness worktrees`: the session worktrees of this repository (`harness -w`) with their state,
// and `merge`, `keep` or `discard <name>` for one (docs/worktrees.md).
import { parseArgs } from "node:util";
import { showControlChars } from "../../shared/control-chars.ts";
import { askOnceUncancelled } from "../../ui/headless/ask-once.ts";
import { WorktreeError } from "../../wiring/worktree-git.ts";
import {
  discardWorktree,
  findWorktree,
  listWorktrees,
  mergeWorktree,
  type WorktreeState,
  workAtRisk,
} from "../../wiring/worktree-state.ts";

const USAGE = `Usage: harness worktrees                  this repository's session worktrees and their state
       harness worktrees merge <name>     merge its branch into this checkout (conflicts are left to you)
       harness worktrees keep <name>      keep its worktree and branch as they are
       harness worktrees discard <name> [--force]   remove its worktree and branch (uncommitted or
                                          unmerged work: asks at a terminal, else needs --force)
`;

const ACTIONS = ["merge", "keep", "discard"] as const;

export async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { force: { type: "boolean" }, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const { argvErrorMessage } = await import("../cli-args.ts");
    process.stderr.write(`harness: ${argvErrorMessage(error, ["force", "help"])}\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [action, name, ...rest] = parsed.positionals;
  const isAction = (ACTIONS as readonly string[]).includes(action ?? "");
  if ((action !== undefined && (!isAction || name === undefined)) || rest.length > 0) {
    process.stderr.write(`harness: ${showControlChars(`worktrees takes ${ACTIONS.join(", ")} and a name`)}\n${USAGE}`);
    return 2;
  }
  try {
    if (action === undefined) return list();
    const state = findWorktree(process.cwd(), name as string);
    if (action === "merge") return merge(state);
    if (action === "keep") {
      process.stdout.write(`kept ${describe(state)}\n`);
      return 0;
    }
    return await discard(state, Boolean(parsed.values.force));
  } catch (error) {
    if (!(error instanceof WorktreeError)) throw error;
    process.stderr.write(`harness: ${showControlChars(error.message)}\n`);
    return 1;
  }
}

function list(): number {
  const states = listWorktrees(process.cwd());
  if (states.length === 0) {
    process.stderr.write("no session worktrees in this repository (harness -w starts one)\n");
    return 0;
  }
  process.stdout.write(`${states.map(describe).join("\n")}\n`);
  return 0;
}

/** `feat  harness/feat  2 ahead, 1 behind, 3 dirty  session m4x7k2qa-3f9z  /path` */
function describe(state: WorktreeState): string {
  const where = [
    `${state.ahead} ahead`,
    `${state.behind} behind`,
    state.dirtyFiles > 0 ? `${state.dirtyFiles} uncommitted` : "clean",
    ...(state.isDetached ? ["HEAD detached from the branch"] : []),
    ...(state.isMissing ? ["folder missing (discard cleans up)"] : []),
  ].join(", ");
  const session = state.sessionId ? `  session ${state.sessionId}` : "";
  return showControlChars(`${state.name}  ${state.branch}  ${where}${session}  ${state.dir}`);
}

function merge(state: WorktreeState): number {
  if (state.dirtyFiles > 0)
    process.stderr.write(
      `harness: ${state.dirtyFiles} uncommitted file(s) in ${showControlChars(state.dir)} are not merged (commit them there first)\n`,
    );
  const outcome = mergeWorktree(process.cwd(), state);
  switch (outcome.kind) {
    case "merged":
      process.stdout.write(`merged ${state.branch}\n${showControlChars(outcome.summary)}\n`);
      process.stdout.write(`(harness worktrees discard ${state.name} removes the worktree and branch)\n`);
      return 0;
    case "conflicts":
      process.stderr.write(
        `harness: merging ${state.branch} stopped on conflicts in:\n${outcome.files.map((file) => `  ${showControlChars(file)}`).join("\n")}\nresolve them and git commit, or git merge --abort; nothing was resolved for you\n`,
      );
      return 1;
    case "refused":
      process.stderr.write(`harness: not merged: ${showControlChars(outcome.reason)}\n`);
      return 1;
  }
}

async function discard(state: WorktreeState, force: boolean): Promise<number> {
  const risk = workAtRisk(process.cwd(), state);
  if (risk && !force) {
    const question = `${state.name} has ${risk}; discard it anyway? [y/N] `;
    const answer = process.stdin.isTTY ? await askOnceUncancelled(question) : undefined;
    if (!/^y(es)?$/i.test(answer?.trim() ?? "")) {
      process.stderr.write(
        `harness: ${showControlChars(`${state.name} kept: it has ${risk} (harness worktrees discard ${state.name} --force removes it)`)}\n`,
      );
      return 1;
    }
  }
  discardWorktree(process.cwd(), state);
  process.stdout.write(
    `discarded ${showControlChars(`${state.name}: removed ${state.dir} and branch ${state.branch}`)}\n`,
  );
  return 0;
}

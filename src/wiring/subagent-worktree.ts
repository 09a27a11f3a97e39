// Subagents in worktrees: a `task` call with `isolation: "worktree"`, or a named agent whose front
// matter says `isolation: worktree` (Claude Code's key, https://code.claude.com/docs/en/sub-agents),
// runs in a session worktree of its own (session-worktree.ts: branch `harness/agent-<id>`, beside
// the repository), so subagents started together can edit the same files. The child's workspace,
// sandbox and permission policy are the worktree's, set up as the parent's were (its flags, its
// folder trust, the mode it is in now, the same person or editor answering). When it ends, what it
// left uncommitted is committed on its branch and its result names the branch and a diff summary:
// the parent decides what to merge. A worktree where nothing changed is removed with its branch,
// as Claude Code does. See docs/worktrees.md, "Subagents in worktrees".
import type { ApproveFn } from "../core/run-tools.ts";
import {
  type PermissionFlags,
  type PermissionSetup,
  PermissionSetupError,
  setupPermissions,
  withProjectRules,
} from "../permissions/setup-permissions.ts";
import { removePlaceholdersUnder } from "../sandbox/protected-entries.ts";
import { newSessionId } from "../session/session-id.ts";
import { realOrSame } from "../shared/real-path.ts";
import { policyApprover, type SessionApproval } from "./approval-hooks.ts";
import { stateDir } from "./defaults.ts";
import { askOf, closeSandbox, commandContext } from "./session-sandbox.ts";
import { createSessionWorktree, recordWorktreeSession, type SessionWorktree } from "./session-worktree.ts";
import { commitLeftovers, describeDiff, diffSince } from "./worktree-changes.ts";
import { git, WorktreeError } from "./worktree-git.ts";
import { discardWorktree, findWorktree } from "./worktree-state.ts";

/** Where a child works when it has a workspace of its own: its folder, approver and command sandbox. */
interface ChildPlace {
  cwd: string;
  approve: ApproveFn;
  context: ReturnType<typeof commandContext>;
  /** Ends its sandbox's command helper and network proxy. */
  close(): void;
}

/** Builds a child's place in a folder; throws PermissionSetupError (a broken settings file there). */
export type PlaceFor = (cwd: string) => ChildPlace;

/** What the session gives to build places: its options, its own permissions and trust, its hooks. */
interface ParentSide {
  env: NodeJS.ProcessEnv;
  permissionFlags: PermissionFlags;
  approval: SessionApproval;
  warn: (message: string) => void;
  permissions: PermissionSetup;
  isTrusted: boolean;
  hooks: Parameters<typeof policyApprover>[1];
}

/**
 * The places of a session's children: permissions set up for the child's folder as the session's
 * were for its own. *Decision*: the child takes the parent's folder trust (the worktree is the same
 * repository at its last commit) and the mode the parent is in when it starts; its approver
 * follows the parent's mode from then on. Warnings the parent's setup gave already are not repeated.
 */
export function childPlaces(parent: ParentSide): PlaceFor {
  return (cwd) => {
    const mode = parent.permissions.approvalMode;
    let permissions = setupPermissions(
      { ...parent.permissionFlags, approve: mode.current },
      { cwd, env: parent.env, harnessHome: stateDir(parent.env), warn: parent.warn, ask: askOf(parent.approval) },
    );
    for (const warning of permissions.warnings)
      if (!parent.permissions.warnings.includes(warning)) parent.warn(`warning: ${warning}`);
    if (parent.isTrusted) permissions = withProjectRules(permissions);
    const { policy } = permissions;
    return {
      cwd,
      approve: policyApprover(parent.approval, parent.hooks, parent.warn, { policy, mode, cwd }),
      context: commandContext(permissions),
      close: () => closeSandbox(permissions),
    };
  };
}

/** A child in its own worktree: where it is, the commit it started from, its place. */
export interface IsolatedChild {
  worktree: SessionWorktree;
  start: string;
  place: ChildPlace;
}

/** Makes a worktree for a child of the session in `cwd`; `{ error }` says why not (told to the model). */
export function isolateChild(cwd: string, placeFor: PlaceFor): IsolatedChild | { error: string } {
  let worktree: SessionWorktree | undefined;
  try {
    worktree = createSessionWorktree(cwd, `agent-${newSessionId()}`);
    const start = git(["rev-parse", "HEAD"], worktree.dir).trim();
    return { worktree, start, place: placeFor(worktree.cwd) };
  } catch (error) {
    if (worktree) discardWorktree(cwd, findWorktree(cwd, worktree.name));
    if (!(error instanceof WorktreeError || error instanceof PermissionSetupError)) throw error;
    return { error: `isolation "worktree": ${error.message}` };
  }
}

/** Names the child's session in its worktree's git folder (`harness worktrees` shows it). */
export function recordChildSession(child: IsolatedChild, sessionId: string): void {
  recordWorktreeSession(child.worktree.dir, sessionId);
}

/**
 * The child has ended: its sandbox closes, its leftovers are committed on its branch, and the
 * line for its result says where its work is, or that nothing changed and the worktree is gone.
 */
export function finishIsolatedChild(parentCwd: string, child: IsolatedChild): string {
  child.place.close();
  const { worktree, start } = child;
  removePlaceholdersUnder(realOrSame(worktree.dir));
  try {
    commitLeftovers(worktree.dir, `harness subagent ${worktree.name}`);
    const diff = diffSince(worktree.dir, start);
    if (diff.files === 0) {
      discardWorktree(parentCwd, findWorktree(parentCwd, worktree.name));
      return "[worktree: nothing changed; its worktree and branch were removed]";
    }
    return `[worktree: branch ${worktree.branch} (${describeDiff(diff)} since ${start.slice(0, 12)}) in ${worktree.dir}; merge it with git merge ${worktree.branch}, or harness worktrees merge ${worktree.name}]`;
  } catch (error) {
    if (!(error instanceof WorktreeError)) throw error;
    return `[worktree: branch ${worktree.branch} in ${worktree.dir}, left as it is: ${error.message}]`;
  }
}

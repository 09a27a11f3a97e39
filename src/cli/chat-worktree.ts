// The chat's worktrees: `/worktree [name]` moves the session into a new session worktree (as
// `harness -w` starts one there), and leaving a chat that works in one asks what becomes of it:
// keep it, merge its branch into the checkout it came from, or discard it (docs/worktrees.md).
import { existsSync } from "node:fs";
import { removePlaceholdersUnder } from "../sandbox/protected-entries.ts";
import { readUnderLock, shareHeldLock } from "../session/session-lock.ts";
import { showControlChars } from "../shared/control-chars.ts";
import { realOrSame } from "../shared/real-path.ts";
import type { ResumeOutcome } from "../ui/commands/command-spec.ts";
import { createSessionWorktree, type SessionWorktree } from "../wiring/session-worktree.ts";
import { commitLeftovers } from "../wiring/worktree-changes.ts";
import { repositoryOf, WorktreeError } from "../wiring/worktree-git.ts";
import { discardWorktree, findWorktree, mergeWorktree, workAtRisk } from "../wiring/worktree-state.ts";
import { type ChatMove, SessionChatControls, type SessionChatControlsOptions } from "./chat-controls.ts";

/** A chat's worktree: the one it works in, and the checkout it came from (where a merge goes). */
export interface ChatWorktree {
  made: SessionWorktree;
  from: string;
}

/** The chat's controls with `/worktree`: it moves the chat, as `/resume` of another folder's session does. */
export class WorktreeChatControls extends SessionChatControls {
  /** Set with `move` when `/worktree` made one. */
  enteredWorktree: ChatWorktree | undefined;

  constructor(private readonly place: SessionChatControlsOptions & { worktree: ChatWorktree | undefined }) {
    super(place);
  }

  enterWorktree(name: string): ResumeOutcome {
    const { session, cwd, worktree } = this.place;
    if (worktree) return { said: `this session already works in worktree ${worktree.made.name}`, isLeaving: false };
    let made: SessionWorktree;
    try {
      made = createSessionWorktree(cwd, name);
    } catch (error) {
      if (!(error instanceof WorktreeError)) throw error;
      return { said: `/worktree: ${showControlChars(error.message)}`, isLeaving: false };
    }
    // The conversation goes on there; with nothing sent yet there is no file, and a new session starts.
    const lock = existsSync(session.path) ? shareHeldLock(session.path) : undefined;
    const move: ChatMove = { folder: made.cwd, ...(lock ? { stored: readUnderLock(session.path, lock) } : {}) };
    this.move = move;
    this.enteredWorktree = { made, from: cwd };
    const said = [`moving this session to worktree ${made.dir} on branch ${made.branch}`, ...made.notices];
    return { said: said.map((line) => showControlChars(line)).join("\n"), isLeaving: true };
  }
}

/**
 * Leaving a chat that works in a worktree. One where nothing happened (no commit, nothing
 * uncommitted) is removed with its branch, as Claude Code does; else the person chooses: keep
 * (the default, and what no answer means), merge (what is uncommitted is committed on the branch
 * first, so the merge takes what they saw; conflicts are listed and left in the checkout, the
 * worktree stays), or discard (asked again, naming what would be lost, when anything would be).
 */
export async function leaveChatWorktree(
  worktree: ChatWorktree,
  ask: (question: string) => Promise<string | undefined>,
  stderr: NodeJS.WritableStream,
): Promise<void> {
  const { made, from } = worktree;
  const say = (line: string): void => {
    stderr.write(`harness: ${showControlChars(line)}\n`);
  };
  // The closed session's sandbox placeholders (an empty `.mcp.json`, ...) are no one's work.
  removePlaceholdersUnder(realOrSame(made.dir));
  try {
    let state = findWorktree(from, made.name);
    if (state.ahead === 0 && state.dirtyFiles === 0 && !state.isMissing) {
      discardWorktree(from, state);
      return say(`nothing changed in worktree ${made.name}: removed it and branch ${made.branch}`);
    }
    const into = repositoryOf(from).root;
    const answer = await ask(
      `worktree ${made.name} (${made.branch}): ${state.ahead} commit(s), ${state.dirtyFiles} uncommitted file(s). Keep it (k), merge it into ${into} (m), or discard it (d)? [k] `,
    );
    const choice = answer?.trim().toLowerCase()[0];
    if (choice === "m") {
      commitLeftovers(made.dir, `harness session ${state.sessionId ?? made.name}`);
      state = findWorktree(from, made.name);
      const outcome = mergeWorktree(from, state);
      if (outcome.kind === "merged") {
        discardWorktree(from, findWorktree(from, made.name));
        return say(`merged ${made.branch} into ${into}; removed the worktree and its branch\n${outcome.summary}`);
      }
      if (outcome.kind === "conflicts")
        return say(
          `merging ${made.branch} stopped on conflicts in ${outcome.files.join(", ")}: resolve them in ${into} and git commit, or git merge --abort; the worktree stays`,
        );
      say(`${made.branch} not merged: ${outcome.reason}`);
    } else if (choice === "d") {
      const risk = workAtRisk(from, state);
      const sure = risk ? await ask(`discard ${risk}? This cannot be undone. Type yes to discard: `) : "yes";
      if (sure?.trim().toLowerCase() === "yes") {
        discardWorktree(from, state);
        return say(`discarded worktree ${made.name} and branch ${made.branch}`);
      }
    }
  } catch (error) {
    if (!(error instanceof WorktreeError)) throw error;
    say(error.message);
  }
  say(`kept: the work is on branch ${made.branch} in ${made.dir}; harness worktrees merge|keep|discard ${made.name}`);
}

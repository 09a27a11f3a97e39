// The sessions `harness serve` holds, built as every mode builds them (createSession): the
// serve command's flags are the ceiling of what a client may ask for. A client may narrow the
// approval mode (ask < edits < all), never widen it; the sandbox, network and folder trust are
// the command's alone; a folder is judged as `harness acp` judges it.

import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { APPROVAL_MODES, type ApprovalMode } from "../../permissions/policy.ts";
import type { PermissionFlags } from "../../permissions/setup-permissions.ts";
import type { CreateRequest, ServeHost } from "../../server/http-server.ts";
import type { HostedServeSession } from "../../server/served-session.ts";
import { SessionLookupError } from "../../session/session-list.ts";
import { type LockedSession, SessionLockError } from "../../session/session-lock.ts";
import { showControlChars } from "../../shared/control-chars.ts";
import { BUILT_IN_COMMANDS } from "../../ui/slash-commands.ts";
import { createSession, type Session } from "../../wiring/create-session.ts";
import type { ProviderChoice } from "../../wiring/defaults.ts";
import { workspaceRefusal } from "../../wiring/home-workspace.ts";
import { openInWorktree } from "../../wiring/session-worktree.ts";
import { loadResumeTarget } from "../../wiring/stored-sessions.ts";

interface ServeCeiling {
  choice: ProviderChoice;
  maxTurns?: number;
  permissions: PermissionFlags & { approve: ApprovalMode };
  trust: boolean;
  allowHome: boolean;
}

const warn = (message: string) => process.stderr.write(`harness serve: ${showControlChars(message)}\n`);

export function serveHostFor(ceiling: ServeCeiling, env: NodeJS.ProcessEnv): ServeHost {
  return {
    async create(request: CreateRequest, ask): Promise<HostedServeSession> {
      const approve = narrowedMode(request.approve, ceiling.permissions.approve);
      // A stored session continues in its own folder: a new worktree would be another session's.
      if (request.resume !== undefined && request.worktree !== undefined)
        throw new Error("worktree makes a new session: give resume or worktree, not both");
      const resumed = request.resume === undefined ? undefined : storedSession(request.resume, request.cwd, env);
      try {
        const cwd = request.cwd ?? resumed?.cwd;
        if (cwd === undefined) throw new Error("cwd is required (unless resume names a stored session: its folder)");
        if (!isAbsolute(cwd)) throw new Error("cwd must be an absolute path");
        if (!isFolder(cwd)) throw new Error(`cwd is not a folder: ${showControlChars(cwd)}`);
        const refusal = workspaceRefusal(cwd, env, ceiling.allowHome, " to harness serve's flags");
        if (refusal) throw new Error(refusal);
        const open = async (at: string) => {
          const session = await createSession({
            cwd: at,
            resumed,
            env,
            reservedCommands: BUILT_IN_COMMANDS,
            choice: {
              ...ceiling.choice,
              ...(request.provider ? { provider: request.provider } : {}),
              ...(request.model ? { model: request.model } : {}),
            },
            maxTurns: ceiling.maxTurns,
            permissions: { ...ceiling.permissions, approve },
            // The clients answer what the rules leave open, as a person at the terminal would.
            approval: { delegate: (request, question, signal) => ask(request, question, signal) },
            // No client can be asked about trust: --trust, or a trust given before, as in `harness acp`.
            trust: { flag: ceiling.trust },
            warn,
          });
          return hostedOf(session, at, approve);
        };
        if (request.worktree === undefined) return await open(cwd);
        // As `harness -w` and ACP's session/new with _meta "harness/worktree" (docs/worktrees.md).
        const name = request.worktree === true ? "" : request.worktree;
        const { opened, worktree } = await openInWorktree(cwd, name, open, warn);
        return { ...opened, worktree };
      } catch (error) {
        resumed?.lock.release();
        throw error;
      }
    },
  };
}

function hostedOf(session: Session, cwd: string, approve: string): HostedServeSession {
  return {
    id: session.id,
    cwd,
    approve,
    model: () => session.model,
    run: (prompt, signal) => session.run(prompt, signal),
    switchModel: (model) => session.switchModel(model),
    async undo(turns) {
      const plan = await session.planUndo(turns);
      await session.applyUndo(plan);
      return plan.changes.map((change) => change.path);
    },
    close: () => session.close(),
  };
}

/** The client's mode when it is no wider than the server's; the server's when none is asked. */
function narrowedMode(asked: string | undefined, ceiling: ApprovalMode): ApprovalMode {
  if (asked === undefined) return ceiling;
  const rank = (mode: string) => APPROVAL_MODES.indexOf(mode as ApprovalMode);
  if (rank(asked) < 0) throw new Error(`approve takes ${APPROVAL_MODES.join(", ")}`);
  if (rank(asked) > rank(ceiling))
    throw new Error(`approve "${asked}" is wider than this server allows ("${ceiling}", harness serve --approve)`);
  return asked as ApprovalMode;
}

/**
 * The stored session a client continues (a server killed mid-turn and started again, say): locked
 * as `harness -r` locks it (a lock whose owner died is taken over), and only in its own folder.
 */
function storedSession(given: string, cwd: string | undefined, env: NodeJS.ProcessEnv): LockedSession {
  let found: LockedSession | undefined;
  try {
    found = loadResumeTarget({ resume: given }, env, cwd ?? process.cwd());
  } catch (error) {
    if (error instanceof SessionLookupError || error instanceof SessionLockError) throw new Error(error.message);
    throw error;
  }
  if (!found) throw new Error(`no stored session starts with ${showControlChars(given)}`);
  if (cwd !== undefined && found.cwd !== cwd) {
    found.lock.release();
    throw new Error(`session ${found.header.id} works in ${showControlChars(found.cwd)}: give that folder as cwd`);
  }
  return found;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

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
import { showControlChars } from "../../shared/control-chars.ts";
import { BUILT_IN_COMMANDS } from "../../ui/slash-commands.ts";
import { createSession } from "../../wiring/create-session.ts";
import type { ProviderChoice } from "../../wiring/defaults.ts";
import { workspaceRefusal } from "../../wiring/home-workspace.ts";

interface ServeCeiling {
  choice: ProviderChoice;
  maxTurns?: number;
  permissions: PermissionFlags & { approve: ApprovalMode };
  trust: boolean;
  allowHome: boolean;
}

export function serveHostFor(ceiling: ServeCeiling, env: NodeJS.ProcessEnv): ServeHost {
  return {
    async create(request: CreateRequest, ask): Promise<HostedServeSession> {
      const approve = narrowedMode(request.approve, ceiling.permissions.approve);
      const cwd = request.cwd;
      if (!isAbsolute(cwd)) throw new Error("cwd must be an absolute path");
      if (!isFolder(cwd)) throw new Error(`cwd is not a folder: ${showControlChars(cwd)}`);
      const refusal = workspaceRefusal(cwd, env, ceiling.allowHome, " to harness serve's flags");
      if (refusal) throw new Error(refusal);
      const session = await createSession({
        cwd,
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
        warn: (message) => process.stderr.write(`harness serve: ${showControlChars(message)}\n`),
      });
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
    },
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

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

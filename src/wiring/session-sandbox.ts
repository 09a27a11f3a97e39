// The session's sandbox as tools and the close see it: the command context (environment,
// wrapper, network), and its end: the command helper ends once its commands have, and the
// network proxy (with its socket) goes with it.
import type { AskApprovalFn } from "../permissions/approver.ts";
import type { PermissionSetup } from "../permissions/setup-permissions.ts";
import type { SessionRecorder } from "../session/session-recorder.ts";
import { redactText } from "../shared/redact.ts";
import { closeHosted } from "../tools/commands/command-host.ts";

/** What tools get of the permissions: the command environment, the sandbox, and the network's judge (web_fetch). */
export function commandContext(permissions: PermissionSetup) {
  const { env, secrets, wrapCommand, unwalked, network } = permissions;
  return { env, secrets, wrapCommand, unwalked, ...(network ? { network } : {}) };
}

/** The person who answers questions, when there is one: the network's questions go to them too. */
export function askOf(approval: { ask: AskApprovalFn } | object): AskApprovalFn | undefined {
  return "ask" in approval ? approval.ask : undefined;
}

export function closeSandbox(permissions: PermissionSetup): void {
  closeHosted(permissions.wrapCommand);
  permissions.network?.close();
}

/**
 * Connections written into the session file as they happen (to the recorder /new or /resume moved
 * to), the first MAX_FILED of them: a command that loops on connecting cannot fill the disk.
 */
export function recordConnections(permissions: PermissionSetup, state: { recorder: SessionRecorder }): void {
  let filed = 0;
  permissions.network?.onRecord.push(({ time, command, process, ...record }) => {
    if (++filed > MAX_FILED) return;
    state.recorder.recordConnection({
      ...record,
      at: time,
      ...(command ? { command: redactText(command, permissions.secrets) } : {}),
      ...(process ? { process: redactText(process, permissions.secrets) } : {}),
    });
  });
}

const MAX_FILED = 10_000;

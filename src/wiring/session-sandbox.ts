// The session's sandbox as tools and the close see it: the command context (environment,
// wrapper, network), and its end: the command helper ends once its commands have, and the
// network proxy (with its socket) goes with it.
import type { AskApprovalFn } from "../permissions/approver.ts";
import type { PermissionSetup } from "../permissions/setup-permissions.ts";
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

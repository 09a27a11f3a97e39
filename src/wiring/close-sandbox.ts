// A session is done with its sandbox: the command helper ends once its commands have, and the
// network proxy (with its socket) goes with it.
import type { PermissionSetup } from "../permissions/setup-permissions.ts";
import { closeHosted } from "../tools/commands/command-host.ts";

export function closeSandbox(permissions: PermissionSetup): void {
  closeHosted(permissions.wrapCommand);
  permissions.network?.close();
}

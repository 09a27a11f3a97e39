// What /status and /permissions show (ui/commands/status-command.ts, permissions-command.ts),
// gathered from the session as it was built (wiring/setup-view.ts): no settings file is read again.
import type { PermissionsView, StatusView } from "../ui/commands/command-spec.ts";
import type { Session } from "../wiring/create-session.ts";

/** What sandboxed commands may reach, in a few words (/network says more). */
function networkWords(session: Session): string {
  const { sandbox } = session.setup;
  if (sandbox !== "on") return "not held back (commands run without the sandbox)";
  switch (session.network?.mode) {
    case "on":
      return "open";
    case "list":
      return "the hosts sandbox.network lists, and those you grant (/network)";
    default:
      return "off";
  }
}

export function statusViewOf(session: Session, cwd: string): StatusView {
  return {
    model: session.model.model,
    provider: session.settings.name,
    mode: session.approvalMode.current,
    sessionId: session.id,
    cwd,
    sandbox: session.setup.sandbox,
    network: networkWords(session),
    settingsFiles: session.setup.settingsFiles,
    mcpServers: session.setup.mcpServers,
    languageServers: session.languageServers(),
  };
}

export function permissionsViewOf(session: Session): PermissionsView {
  const { rules, waitingForTrust, notTaken } = session.setup;
  return { mode: session.approvalMode.current, ...rules, waitingForTrust, notTaken };
}

// /status: what this chat runs with and where it came from (Claude Code's /status), in one screen.
import type { CommandSpec, StatusView } from "./command-spec.ts";

export function statusText(view: StatusView): string {
  const lines = [
    `model: ${view.model} (provider ${view.provider})`,
    `approval mode: ${view.mode}`,
    `session: ${view.sessionId}`,
    `folder: ${view.cwd}`,
    `sandbox: ${view.sandbox}; network: ${view.network}`,
    view.settingsFiles.length > 0 ? "settings files read:" : "settings files read: none",
    ...view.settingsFiles.map((file) => `  ${file}`),
    view.mcpServers.length > 0 ? "MCP servers:" : "MCP servers: none",
    ...view.mcpServers.map(
      (server) => `  ${server.name}: ${server.state}${server.tools > 0 ? `, ${server.tools} tools` : ""}`,
    ),
  ];
  if (view.languageServers.length > 0)
    lines.push(
      `language servers: ${view.languageServers.map((server) => `${server.name} ${server.state}`).join(", ")}`,
    );
  return lines.join("\n");
}

export const STATUS_COMMANDS: Record<string, CommandSpec> = {
  status: {
    usage: "/status",
    help: "the model, mode, session, folder, sandbox and network, settings files read, MCP and language servers",
    run: (_, controls, say) => say(statusText(controls.status())),
  },
};

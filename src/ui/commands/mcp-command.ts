// /mcp: the MCP servers configured, each with its state, how many tools it offers and the file it
// is declared in (Claude Code's /mcp).
import type { CommandSpec, McpServerView } from "./command-spec.ts";

export function mcpText(servers: readonly McpServerView[]): string {
  if (servers.length === 0) return "no MCP servers (config.json or .mcp.json `mcpServers`)";
  return servers
    .map((server) => `${server.name}: ${server.state}, ${server.tools} tools  (${server.declaredIn})`)
    .join("\n");
}

export const MCP_COMMANDS: Record<string, CommandSpec> = {
  mcp: {
    usage: "/mcp",
    help: "the MCP servers: their state, their tools, and where each is declared",
    run: (_, controls, say) => say(mcpText(controls.mcpServers())),
  },
};

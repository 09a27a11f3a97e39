// What the user adds around the agent: command hooks (settings.json) and MCP servers'
// tools (config.json, .mcp.json). Shared by the CLI and the ACP server; the MCP SDK is loaded
// only when servers are configured.
import { stateDir } from "./config.ts";
import type { Tool } from "./core/tool.ts";
import { createCommandHooks, type CommandHooks } from "./hooks/command-hooks.ts";
import { loadHooks, settingsPaths } from "./hooks/settings.ts";
import { loadMcpServers, mcpConfigPaths, type McpServerConfig } from "./mcp/config.ts";

/** Hooks and extra tools for one session, and how to stop the servers behind them. */
export interface Extensions {
  hooks: CommandHooks;
  tools: Tool[];
  close(): Promise<void>;
}

export interface ExtensionOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  warn(message: string): void;
  /** Servers to add to the configured ones (an editor's, over ACP); same name replaces. */
  extraServers?: McpServerConfig[];
}

export async function loadExtensions(options: ExtensionOptions): Promise<Extensions> {
  const { cwd, env, warn } = options;
  const home = stateDir(env);
  const hooks = createCommandHooks(loadHooks(settingsPaths(cwd, home), warn), { cwd, env, warn });
  const configured = loadMcpServers(mcpConfigPaths(cwd, home), env, warn);
  const extra = options.extraServers ?? [];
  const servers = [...configured.filter((server) => !extra.some((e) => e.name === server.name)), ...extra];
  if (servers.length === 0) return { hooks, tools: [], close: async () => {} };
  const { connectMcpServers } = await import("./mcp/connect.ts");
  const mcp = await connectMcpServers(servers, { cwd, warn });
  return { hooks, tools: mcp.tools, close: () => mcp.close() };
}

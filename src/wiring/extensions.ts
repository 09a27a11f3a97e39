// What the user adds around the agent: command hooks (settings.json) and MCP servers'
// tools (config.json, .mcp.json). Shared by the CLI and the ACP server; the MCP SDK is loaded
// only when servers are configured. A project's hooks and servers come only from a trusted
// folder (permissions/folder-trust.ts), and none of them sees a credential it was not given.

import type { Tool } from "../core/tool.ts";
import { type CommandHooks, createCommandHooks } from "../hooks/command-hooks.ts";
import { type CommandHook, loadHooks } from "../hooks/hook-settings.ts";
import { declaredServers } from "../lsp/declared-servers.ts";
import { type LanguageServerHook, languageServerHook } from "../lsp/edit-diagnostics-hook.ts";
import { lspTool } from "../lsp/lsp-tool.ts";
import { KNOWN_SERVERS } from "../lsp/server-specs.ts";
import { serversHere } from "../lsp/servers-here.ts";
import { loadMcpServers, type McpServerConfig, projectMcpServers, userMcpServers } from "../settings/mcp-servers.ts";
import { settingsSources } from "../settings/settings-file.ts";
import { redactText, secretValuesOf } from "../shared/redact.ts";
import { prepareBase64Image } from "../tools/image-file.ts";
import { codingTools } from "../tools/index.ts";
import { configPath, type HarnessConfig } from "./config-file.ts";
import { stateDir } from "./defaults.ts";

/** Hooks and extra tools for one session, and how to stop the servers behind them. */
export interface Extensions {
  hooks: CommandHooks;
  /** The hooks as declared, for the check that each matcher can match (settings/check-names.ts). */
  declaredHooks: CommandHook[];
  tools: Tool[];
  /** Every MCP server configured, an untrusted project's too: a rule may name one that is not running. */
  serverNames: string[];
  /** Those of an untrusted project, never started (`/status`), and the file each server is declared in (`/mcp`). */
  untrustedServers: string[];
  declaredIn: Record<string, string>;
  /** Language servers' diagnostics after edits (src/lsp): started on the first file one serves. */
  lsp: LanguageServerHook;
  close(): Promise<void>;
}

export interface ExtensionOptions {
  cwd: string;
  /** The whole environment: `${VAR}` in the user's own config.json may name any variable. */
  env: NodeJS.ProcessEnv;
  /**
   * What hooks and MCP servers run with, and all that `${VAR}` in a project's .mcp.json may
   * expand: the bash tool's environment, credentials removed except those the user passes through.
   */
  commandEnv: Record<string, string>;
  /** config.json as the session read it: its `mcpServers` are the user's servers. */
  config: Pick<HarnessConfig, "mcpServers">;
  /** Whether this folder's own hooks and MCP servers may run. */
  isProjectTrusted: boolean;
  warn(message: string): void;
  /** Servers to add to the configured ones (an editor's, over ACP); same name replaces. */
  extraServers?: McpServerConfig[];
}

export async function loadExtensions(options: ExtensionOptions): Promise<Extensions> {
  const { cwd, env, commandEnv, isProjectTrusted } = options;
  const home = stateDir(env);
  // A warning may quote a server's URL, headers or error text: keys never reach the terminal.
  const secrets = secretValuesOf(env);
  const warn = (message: string) => options.warn(redactText(message, secrets));
  const sources = settingsSources(cwd, home, env);
  const hookFiles = [...sources.user, ...(isProjectTrusted ? sources.project : [])];
  const declaredHooks = loadHooks(hookFiles, warn);
  const hooks = createCommandHooks(declaredHooks, { cwd, env: commandEnv, warn });
  const user = userMcpServers(options.config.mcpServers, configPath(env), env);
  const project = projectMcpServers(cwd, env, commandEnv);
  const configured = loadMcpServers([user, ...(isProjectTrusted ? [project] : [])], warn);
  const extra = options.extraServers ?? [];
  const servers = [...configured.filter((server) => !extra.some((e) => e.name === server.name)), ...extra];
  // Only names: an untrusted project's servers are never started (their problems were reported by folder trust).
  const untrusted = isProjectTrusted ? [] : project.declared.servers;
  const serverNames = [...servers, ...untrusted].map((server) => server.name);
  // Servers run with the commands' environment: no credential reaches them.
  const specs = [...declaredServers(sources, isProjectTrusted, warn), ...KNOWN_SERVERS];
  const lsp = languageServerHook({
    root: cwd,
    env: commandEnv,
    specs,
    isProjectTrusted,
    warn,
    tools: () => [...codingTools, ...(mcp?.tools ?? [])],
  });
  const mcp =
    servers.length === 0
      ? undefined
      : await (await import("../mcp/connect.ts")).connectMcpServers(servers, {
          cwd,
          env: commandEnv,
          warn,
          prepareImage: prepareBase64Image,
        });
  const close = async () => {
    await Promise.all([mcp?.close(), lsp.close()]);
  };
  // The lsp tool only where a server can run and has files to serve: no tool the model cannot use.
  const lspServers = serversHere(specs, cwd, commandEnv, isProjectTrusted);
  const tools = [...(lspServers.length > 0 ? [lspTool(lsp, lspServers)] : []), ...(mcp?.tools ?? [])];
  const untrustedServers = untrusted.map((server) => server.name);
  const declaredIn: Record<string, string> = {};
  for (const source of [user, project])
    for (const server of source.declared.servers) declaredIn[server.name] = source.path;
  for (const server of extra) declaredIn[server.name] = "this session's own servers (the editor's, or a flag)";
  return { hooks, declaredHooks, tools, serverNames, untrustedServers, declaredIn, lsp, close };
}

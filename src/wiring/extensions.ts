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
import { mcpToolName } from "../settings/tool-names.ts";
import { redactText, secretValuesOf } from "../shared/redact.ts";
import { prepareBase64Image } from "../tools/image-file.ts";
import { codingTools } from "../tools/index.ts";
import { configPath, type HarnessConfig } from "./config-file.ts";
import { stateDir } from "./defaults.ts";

/**
 * How long a one-shot waits for MCP servers still starting before its first model request: a
 * script's first request then lists the tools of a server that starts in time, and a server that
 * never starts (an `npx -y` package that cannot be fetched) costs 5 s, not its 30 s start bound.
 * Claude Code bounds `-p`'s wait at 5 s too (changelog 2.1.89, quoted in anthropics/claude-code#41792);
 * HARNESS_MCP_STARTUP_WAIT_MS (or Claude Code's CLAUDE_CODE_MCP_STARTUP_WAIT_MS) changes it, 0 waits for none.
 */
export function oneShotMcpWaitMs(env: NodeJS.ProcessEnv): number {
  const given = env.HARNESS_MCP_STARTUP_WAIT_MS ?? env.CLAUDE_CODE_MCP_STARTUP_WAIT_MS;
  const ms = given === undefined || given.trim() === "" ? Number.NaN : Number(given);
  return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, 60_000) : 5000;
}

/**
 * How long each MCP server gets to start: Claude Code's MCP_TIMEOUT (milliseconds), read the same
 * way so a copied setup's slow `npx` servers keep their bound, else 30 s (MCP_CONNECT_TIMEOUT_MS).
 * A value that is not a positive number is said once and the default kept.
 */
function mcpStartTimeoutMs(env: NodeJS.ProcessEnv, warn: (message: string) => void): number | undefined {
  const given = env.MCP_TIMEOUT?.trim();
  if (!given) return undefined;
  const ms = Number(given);
  if (Number.isFinite(ms) && ms > 0) return Math.min(ms, 2_147_483_647);
  warn(
    `warning: MCP_TIMEOUT=${JSON.stringify(given)} is not a number of milliseconds; MCP servers get the default 30 s to start`,
  );
  return undefined;
}

/** Hooks and extra tools for one session, and how to stop the servers behind them. */
export interface Extensions {
  hooks: CommandHooks;
  /** The hooks as declared, for the check that each matcher can match (settings/check-names.ts). */
  declaredHooks: CommandHook[];
  /** The tools there are at once (the lsp tool); MCP servers' come later, through `onServerTools`. */
  tools: Tool[];
  /** Hands on each MCP server's tools as it comes up (servers start in the background), and those already up at once. */
  onServerTools(listener: (tools: Tool[]) => void): void;
  /**
   * For calls naming tools of servers still starting: waits for those servers' starts (each bounded
   * by MCP_CONNECT_TIMEOUT_MS from launch), after which their tools are in the session's list.
   */
  lateTools(names: string[]): Promise<void>;
  /** Waits until every server has started or failed, at most `ms` (a one-shot's first request). */
  serversStarted(ms: number): Promise<void>;
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
  const serverTools: Tool[] = [];
  const listeners: ((tools: Tool[]) => void)[] = [];
  const lsp = languageServerHook({
    root: cwd,
    env: commandEnv,
    specs,
    isProjectTrusted,
    warn,
    tools: () => [...codingTools, ...serverTools],
  });
  // In the background: neither the SDK's loading nor any server's start holds up the session.
  const startup =
    servers.length === 0
      ? undefined
      : import("../mcp/connect.ts").then((connect) =>
          connect.startMcpServers(
            servers,
            { cwd, env: commandEnv, warn, prepareImage: prepareBase64Image, timeoutMs: mcpStartTimeoutMs(env, warn) },
            (added) => {
              serverTools.push(...added);
              for (const listener of listeners) listener(added);
            },
          ),
        );
  const close = async () => {
    await Promise.all([startup?.then((started) => started.close()), lsp.close()]);
  };
  const lateTools = async (names: string[]) => {
    if (!startup || names.length === 0) return;
    const started = await startup;
    const named = servers.filter((config) => names.some((name) => name.startsWith(mcpToolName(config.name, ""))));
    await Promise.all(named.map((config) => started.started(config.name)));
  };
  const serversStarted = async (ms: number) => {
    if (!startup) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    await Promise.race([startup.then((started) => started.allStarted), bound]);
    clearTimeout(timer);
  };
  const onServerTools = (listener: (tools: Tool[]) => void) => {
    listeners.push(listener);
    if (serverTools.length > 0) listener([...serverTools]); // those of servers already up
  };
  // The lsp tool only where a server can run and has files to serve: no tool the model cannot use.
  const lspServers = serversHere(specs, cwd, commandEnv, isProjectTrusted);
  const tools = lspServers.length > 0 ? [lspTool(lsp, lspServers)] : [];
  const untrustedServers = untrusted.map((server) => server.name);
  const declaredIn: Record<string, string> = {};
  for (const source of [user, project])
    for (const server of source.declared.servers) declaredIn[server.name] = source.path;
  for (const server of extra) declaredIn[server.name] = "this session's own servers (the editor's, or a flag)";
  return {
    hooks,
    declaredHooks,
    tools,
    onServerTools,
    lateTools,
    serversStarted,
    serverNames,
    untrustedServers,
    declaredIn,
    lsp,
    close,
  };
}

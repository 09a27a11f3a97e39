// What took effect in a session and where it came from, for the chat's /status and /permissions
// (ui/commands/status-command.ts, permissions-command.ts): read from what the session was built
// with, never by reading a settings file again (each file has one reader, in src/settings).
import type { Tool } from "../core/tool.ts";
import type { SandboxState } from "../permissions/policy.ts";
import type { Rule } from "../permissions/rules.ts";
import type { PermissionSetup } from "../permissions/setup-permissions.ts";
import type { NamedAgent } from "../prompts/agents.ts";
import type { Extensions } from "./extensions.ts";

export interface SetupView {
  settingsFiles: readonly string[];
  /** Entries of those files not taken, each a sentence naming file and entry. */
  notTaken: readonly string[];
  rules: { allow: readonly Rule[]; ask: readonly Rule[]; deny: readonly Rule[] };
  /** A project's allow rules waiting for folder trust (not in effect). */
  waitingForTrust: readonly Rule[];
  sandbox: SandboxState;
  mcpServers: ReadonlyArray<{ name: string; state: string; tools: number; declaredIn: string }>;
  /** The hooks in effect, in the order they run (an untrusted project's are not loaded). */
  hooks: ReadonlyArray<{ event: string; matcher?: string; command: string; source: string; where: string }>;
  /** The named agents found (/agents), as the task tool was given them: no agent file is read again. */
  agents: ReadonlyArray<Omit<NamedAgent, "prompt">>;
}

/** `tools`: the model's live list, which an MCP server's tools join when it comes up (servers start in the background). */
export function setupView(
  permissions: PermissionSetup,
  extensions: Extensions,
  tools: readonly Tool[],
  agents: readonly NamedAgent[],
): SetupView {
  const { policy } = permissions;
  return {
    agents: agents.map(({ prompt: _prompt, ...agent }) => agent),
    settingsFiles: permissions.settingsFiles,
    notTaken: permissions.notTaken,
    rules: { allow: policy.allow, ask: policy.ask, deny: policy.deny },
    waitingForTrust: permissions.projectAllow,
    sandbox: policy.sandbox,
    hooks: extensions.declaredHooks.map(({ event, matcher, command, source, where }) => ({
      event,
      ...(matcher === undefined ? {} : { matcher }),
      command,
      source,
      where,
    })),
    // A getter: read when /status or /mcp asks, by then more servers may be up.
    get mcpServers() {
      return extensions.serverNames.map((name) => {
        // An MCP tool's model-facing name is `server__tool` (mcp/mcp-tool.ts).
        const count = tools.filter((tool) => tool.name.startsWith(`${name}__`)).length;
        const state = extensions.untrustedServers.includes(name)
          ? "not started (this folder is not trusted)"
          : count > 0
            ? "running"
            : "no tools yet (still starting, failed to start: see its warning, or it offers none)";
        return { name, state, tools: count, declaredIn: extensions.declaredIn[name] ?? "unknown" };
      });
    },
  };
}

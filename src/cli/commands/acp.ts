// `harness acp`: serve the Agent Client Protocol on stdin/stdout for an editor. stdout carries
// only protocol messages; warnings go to stderr (editors show it in their agent log).
// Each editor session is a harness session: recorded in $HARNESS_HOME/sessions like a CLI run,
// so `session/load` (and `harness -r <id>`) can continue it.

import { Readable, Writable } from "node:stream";
import type { McpServer } from "@agentclientprotocol/sdk";
import type { AcpHost, AskEditorFn, HostedSession } from "../../acp/acp-server.ts";
import type { HostedModes } from "../../acp/session-modes.ts";
import type { ApprovalModeSwitch } from "../../permissions/approval-mode.ts";
import type { ApprovalMode } from "../../permissions/policy.ts";
import { findSessionByPrefix } from "../../session/session-list.ts";
import { type LockedSession, lockAndReadSession } from "../../session/session-lock.ts";
import type { McpServerConfig } from "../../settings/mcp-servers.ts";
import { showControlChars } from "../../shared/control-chars.ts";
import { VERSION } from "../../shared/version.ts";
import { BUILT_IN_COMMANDS } from "../../ui/slash-commands.ts";
import { createSession } from "../../wiring/create-session.ts";
import type { ProviderChoice } from "../../wiring/defaults.ts";
import { workspaceRefusal } from "../../wiring/home-workspace.ts";
import { openInWorktree } from "../../wiring/session-worktree.ts";
import { sessionsDirFor } from "../../wiring/stored-sessions.ts";
import { PROVIDER_FLAGS, parseFlags, UsageError } from "../cli-args.ts";
import { preparePromptImages } from "../prompt-images.ts";

const HELP = `Usage: harness acp [--provider <name>] [--model <name>] [--base-url <url>] [--api <wire>]
                  [--thinking <level>] [--max-turns <n>] [--trust] [--allow-home]

Speaks the Agent Client Protocol (https://agentclientprotocol.com) on stdin and stdout, so an
editor such as Zed can use harness as its agent. Provider settings are chosen as for a run.
Commands and edits ask the editor for permission; hooks and MCP servers apply as in the CLI.
The editor's mode list switches the approval mode: ask, edits (accept edits) or plan (nothing
changes; commands run in a read-only sandbox).
A folder's own hooks, MCP servers and allow rules apply only once you trusted it (by running
harness there once, or in trustedFolders of your settings.json), or with --trust for every folder.
A folder that holds your home folder (~, /), or is inside a hidden folder of it (~/.dotfiles), is
refused unless --allow-home is given; credential folders and $HARNESS_HOME are refused always.

Zed (settings.json):
  "agent_servers": { "harness": { "command": "harness", "args": ["acp"] } }
`;

/** The flags `harness acp` takes (test/cli/cli-help-flags.test.ts: each one is in its help). */
export const ACP_FLAGS = [...PROVIDER_FLAGS, "trust", "allow-home", "help"] as const;

export async function run(argv: string[]): Promise<number> {
  let flags;
  try {
    ({ flags } = parseFlags(argv, ACP_FLAGS));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`harness acp: ${showControlChars(error.message)}\nTry 'harness acp --help'.\n`);
    return 2;
  }
  if (flags.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const { serveAcp } = await import("../../acp/acp-server.ts");
  const { ndJsonStream } = await import("@agentclientprotocol/sdk");
  const choice: ProviderChoice = {
    provider: flags.provider,
    model: flags.model,
    baseUrl: flags["base-url"],
    api: flags.api,
    thinking: flags.thinking,
  };
  const maxTurns = flags["max-turns"];
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const allowHome = Boolean(flags["allow-home"]);
  await serveAcp(stream, hostFor(choice, maxTurns, { trust: Boolean(flags.trust), allowHome }, process.env));
  return 0;
}

function hostFor(
  choice: ProviderChoice,
  maxTurns: number | undefined,
  given: { trust: boolean; allowHome: boolean },
  env: NodeJS.ProcessEnv,
): AcpHost {
  /** Provider problems (no key, bad config) become the editor's error message for the request. */
  const open = async (
    cwd: string,
    mcpServers: McpServer[],
    askEditor: AskEditorFn,
    resumed: LockedSession | undefined,
  ): Promise<HostedSession> => {
    // An editor cannot be asked this: the flag in the agent server's args is the choice.
    const refusal = workspaceRefusal(cwd, env, given.allowHome, " to harness acp's args");
    if (refusal) throw new Error(refusal);
    const session = await createSession({
      cwd,
      reservedCommands: BUILT_IN_COMMANDS,
      env,
      choice,
      resumed,
      maxTurns,
      // The same sandbox, credential-free environment and rules as the CLI; the editor answers what
      // the rules leave open, as a person at the terminal would (an "always" adds only what it names).
      permissions: {},
      approval: { delegate: askEditor },
      // An editor session cannot be asked about trust: as in a headless run, a trust given in a
      // chat or in the user's settings counts, or --trust; otherwise one line in the editor's log.
      trust: { flag: given.trust },
      mcpServers: mcpServers.map(toServerConfig),
      warn: (message) => process.stderr.write(`harness: ${showControlChars(message)}\n`),
    });
    return {
      id: session.id,
      tools: session.tools,
      modes: modesOf(session.approvalMode),
      run: session.run,
      close: session.close,
    };
  };
  return {
    name: "harness",
    version: VERSION,
    warn: (message) => process.stderr.write(`harness: ${message}\n`),
    async newSession({ cwd, mcpServers, askEditor, worktree }) {
      if (worktree === undefined) return open(cwd, mcpServers, askEditor, undefined);
      // As `harness -w`: the session works in a worktree of its own (docs/worktrees.md).
      const { opened, worktree: made } = await openInWorktree(
        cwd,
        worktree,
        (at) => open(at, mcpServers, askEditor, undefined),
        (notice) => process.stderr.write(`harness: ${showControlChars(notice)}\n`),
      );
      return { ...opened, worktree: made };
    },
    prepareImages: (prompt) => preparePromptImages(prompt),
    async loadSession({ sessionId, cwd, mcpServers, askEditor }) {
      // Locked, as for -r: a session another harness (or another editor session here) writes is refused, saying who.
      const session = lockAndReadSession(findSessionByPrefix(sessionsDirFor(env), sessionId).path);
      const hosted = await open(cwd, mcpServers, askEditor, session);
      return { ...hosted, history: session.messages };
    },
  };
}

/** The session's approval mode as ACP's modes (acp/session-modes.ts checks an id before setting it). */
function modesOf(mode: ApprovalModeSwitch): HostedModes {
  return {
    get current() {
      return mode.current;
    },
    get afterPlan() {
      return mode.afterPlan;
    },
    set: (id) => mode.set(id as ApprovalMode),
    onChange: (listener) => mode.onChange(listener),
  };
}

/** An editor's MCP server (ACP's shape: env and headers as name/value lists) in harness's shape. */
function toServerConfig(server: McpServer): McpServerConfig {
  if ("command" in server) {
    return {
      transport: "stdio",
      name: server.name,
      command: server.command,
      args: server.args,
      env: Object.fromEntries(server.env.map((v) => [v.name, v.value])),
    };
  }
  return {
    transport: server.type,
    name: server.name,
    url: server.url,
    headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])),
  };
}

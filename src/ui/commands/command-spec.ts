// What a chat command acts on (ChatControls, which the CLI wiring provides) and the shape of one
// command's record. Each group of commands is its own module in this room; slash-commands.ts lists them.
import type { Rule } from "../../permissions/rules.ts";
import type { LanguageServerView } from "../lsp-command.ts";

/** What the slash commands can do to the running chat. Errors thrown carry a message for the user. */
export interface ChatControls {
  /** `provider · model` now in use. */
  currentModel(): string;
  /** The models the provider offers, one line each, the one in use marked (known ones when the endpoint cannot list them). */
  listModels(): Promise<string[]>;
  /** Switches the model for the next replies (same provider and settings); returns the new `provider · model`. */
  switchModel(model: string): Promise<string>;
  /** Starts a new, empty session; returns its id. */
  newSession(): string;
  /** The current session's id. */
  sessionId(): string;
  /** Tokens used by the current session so far and their cost in dollars, worded as a one-shot run's summary. */
  usageAndCost(): string;
  /** Recent sessions, one formatted line each. */
  listSessions(): string[];
  /** Continues another session (id or unique prefix), here or, when the person chose its folder, by leaving this chat for one there. */
  resume(id: string): Promise<ResumeOutcome>;
  /** Moves the session into a new git worktree (`/worktree [name]`), by leaving this chat for one there. */
  enterWorktree?(name: string): ResumeOutcome;
  /** Goes on in a copy of the current session under a new id (as `--fork`); returns what to tell the person. */
  fork(): Promise<string>;
  /** Writes the current session to a file; returns the path written. */
  exportSession(format: "md" | "html", file?: string): string;
  /** Commands that expand into a prompt (`.harness/commands/*.md`, /init), for /help and Tab. */
  promptCommands(): readonly PromptCommandInfo[];
  /** The prompt `/name args` stands for, when `name` is a prompt command. */
  promptFor(line: string): Promise<string | undefined> | string | undefined;
  /** The skills the model may use, one line each, and a note on any left out. */
  listSkills(): string[];
  /** Takes back the last `turns` turns, files and conversation, once the person said yes to the list of files; says what happened. */
  undo(turns: number): Promise<string>;
  /** Reverses the latest undo the same way. */
  redo(): Promise<string>;
  /** Summarises the older part of the conversation to free context (`focus`: what to keep in particular). */
  compact(focus: string): Promise<string>;
  /** How much the model thinks now (`high`, `4096 tokens`, `default`). */
  thinking(): string;
  /** Sets how much the model thinks (a level or a token budget, as typed); returns what to tell the user. */
  setThinking(level: string): Promise<string>;
  /** The session's background processes, one line each (running and recently ended). */
  listBackground(): string[];
  /** Stops one background process and its tree; returns how it ended. */
  killBackground(id: number): Promise<string>;
  /** `/network [add|save|remove entry]`: does it, and says what sandboxed commands may reach (cli/chat-network.ts). */
  network?(args: string): string;
  /** The approval mode and what it means (`mode` empty), or switches to `mode` (ask, edits, plan); says which. */
  approvalMode(mode: string): string;
  /** The session's language servers now: each one's state and the diagnostics it gave (/lsp). */
  languageServers(): readonly LanguageServerView[];
  /** What the chat runs with and where it came from (/status). */
  status(): StatusView;
  /** The permission rules in effect with their files, the mode, and what was not taken (/permissions). */
  permissions(): PermissionsView;
  /** The MCP servers configured: state, tool count, the file each is declared in (/mcp). */
  mcpServers(): readonly McpServerView[];
  /** The hooks in effect, in the order they run, each with its file (/hooks). */
  hooksInEffect(): readonly HookView[];
  /** The named agents the task tool can start, each with its file (/agents). */
  namedAgents(): readonly AgentView[];
}

/** What `/resume` tells the person, and whether this chat ends so the session can continue in its own folder. */
export interface ResumeOutcome {
  said: string;
  isLeaving: boolean;
}

/** A prompt command as /help shows it. */
export interface PromptCommandInfo {
  name: string;
  description: string;
  argumentHint?: string;
}

/** What the chat loop does after a command: read the next line, leave, or run a prompt the command wrote. */
export type CommandOutcome = "continue" | "exit" | { prompt: string };

export interface CommandSpec {
  usage: string;
  help: string;
  run(
    args: string,
    controls: ChatControls,
    say: (text: string) => void,
  ): Promise<CommandOutcome | void> | CommandOutcome | void;
}

/** What /status shows: gathered by cli/chat-setup-views.ts, worded by status-command.ts. */
export interface StatusView {
  model: string;
  provider: string;
  mode: string;
  sessionId: string;
  cwd: string;
  /** `on`, `off`, or `unavailable` (no sandbox works here). */
  sandbox: string;
  /** What sandboxed commands may reach, in a few words. */
  network: string;
  settingsFiles: readonly string[];
  mcpServers: readonly McpServerView[];
  languageServers: readonly LanguageServerView[];
}

/** What /permissions shows: gathered by cli/chat-setup-views.ts, worded by permissions-command.ts. */
export interface PermissionsView {
  mode: string;
  allow: readonly Rule[];
  ask: readonly Rule[];
  deny: readonly Rule[];
  /** A project's allow rules, not in effect until the folder is trusted. */
  waitingForTrust: readonly Rule[];
  /** Settings entries not taken, each a sentence naming its file and why. */
  notTaken: readonly string[];
}

/** One hook as /hooks shows it (hooks-command.ts words it). */
export interface HookView {
  event: string;
  /** Undefined: every subject. */
  matcher?: string;
  command: string;
  source: string;
  /** `hooks.PreToolUse[0]`. */
  where: string;
}

/** One named agent as /agents shows it (agents-command.ts words it). */
export interface AgentView {
  name: string;
  description: string;
  path: string;
  /** Absent: the session's model. */
  model?: string;
  /** Absent: the task tool's default, the read-only tools. */
  tools?: readonly string[];
  isolation?: string;
}

/** One MCP server as /status and /mcp show it (mcp-command.ts words it). */
export interface McpServerView {
  name: string;
  state: string;
  tools: number;
  declaredIn: string;
}

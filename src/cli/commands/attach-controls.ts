// The chat's slash commands (ui/slash-commands.ts) over a served session: /model and /undo go to
// the server, /exit (and /detach) leave it running there. The rest act on a session held by this
// process, which an attached terminal has not: each says so, naming where it can be done.
import type { ServeClient } from "../../server/serve-client.ts";
import type { ChatControls, PromptCommandInfo, ResumeOutcome } from "../../ui/commands/command-spec.ts";
import type { AttachedSession } from "./attached-session.ts";

export class AttachedControls implements ChatControls {
  constructor(
    private readonly client: ServeClient,
    private readonly session: AttachedSession,
  ) {}

  currentModel(): string {
    return this.session.title();
  }

  async switchModel(model: string): Promise<string> {
    const changed = await this.session.change("model_changed", () => this.client.switchModel(this.session.id, model));
    return [`${changed.provider} · ${changed.model}`, ...changed.notes].join("\n");
  }

  async undo(turns: number): Promise<string> {
    const undone = await this.session.change("undone", () => this.client.undo(this.session.id, turns));
    return `undid ${undone.turns} turn(s) in the server: ${undone.files.join(", ") || "no files changed"}`;
  }

  sessionId(): string {
    return this.session.id;
  }

  promptCommands(): readonly PromptCommandInfo[] {
    return [];
  }

  promptFor(): string | undefined {
    return undefined;
  }

  languageServers(): never {
    throw notHere("/lsp", "the server's session runs its language servers; its edits' results carry their diagnostics");
  }
  status(): never {
    throw notHere("/status");
  }
  mcpServers(): never {
    throw notHere("/mcp");
  }
  hooksInEffect(): never {
    throw notHere("/hooks");
  }
  namedAgents(): never {
    throw notHere("/agents");
  }
  permissions(): never {
    throw notHere("/permissions");
  }
  approvalMode(): string {
    throw notHere("/mode", "the server's session keeps the mode it was started in");
  }
  listModels(): Promise<string[]> {
    return Promise.reject(notHere("/model without a name", "name the model: /model <name>"));
  }
  newSession(): string {
    throw notHere("/clear", "start another with the page's New, or harness attach in another folder");
  }
  usageAndCost(): string {
    throw notHere("/cost");
  }
  listSessions(): string[] {
    throw notHere("/sessions", "the page lists them");
  }
  resume(): Promise<ResumeOutcome> {
    return Promise.reject(notHere("/resume", "detach, then harness attach <id>"));
  }
  fork(): Promise<string> {
    return Promise.reject(notHere("/fork"));
  }
  exportSession(): string {
    throw notHere("/export", "harness export <id> once the server has recorded it");
  }
  listSkills(): string[] {
    throw notHere("/skills");
  }
  redo(): Promise<string> {
    return Promise.reject(notHere("/redo"));
  }
  compact(): Promise<string> {
    return Promise.reject(notHere("/compact"));
  }
  thinking(): string {
    throw notHere("/thinking");
  }
  setThinking(): Promise<string> {
    return Promise.reject(notHere("/thinking"));
  }
  listBackground(): string[] {
    throw notHere("/ps");
  }
  killBackground(): Promise<string> {
    return Promise.reject(notHere("/ps"));
  }
}

/** The server's API has no call for it (docs/serve.md lists the ones it has). */
function notHere(command: string, instead?: string): Error {
  return new Error(
    `${command} is not available in an attached session (harness serve's API has no call for it)${instead ? `; ${instead}` : ""}`,
  );
}

import { z } from "zod";
import type { TodoItem } from "./event-schema.ts";
import type { AgentEvent } from "./events.ts";
import type { ImagePart, ModelUsage } from "./messages.ts";
import type { ToolSpec } from "./provider.ts";

/**
 * What a tool may do, which is what approval policies look at: `read` runs freely,
 * `edit` changes files in the workspace, `execute` runs arbitrary commands.
 */
export type ToolKind = "read" | "edit" | "execute";

/** Builds the command line that runs `argv` inside a sandbox (`bwrap ... -- bash -c cmd`), in `cwd`. */
export type WrapCommand = (argv: string[], cwd: string) => string[];

/**
 * The part of a tool's context a session sets once, the same for every call: given to the
 * Agent as one object (AgentOptions.toolContext) and passed on whole to each call's context.
 */
export interface SessionToolContext {
  /** State that outlives a run, shared by tools for the whole session (its background processes); absent: none. */
  sessionState?: Map<string, unknown>;
  /** The environment commands run with (secrets already removed); defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** Where output too long for the model is saved in full (the session's `spill/`); a temp folder when absent. */
  spillDir?: string;
  /** The session's file, the full record a compaction points the model to; absent: no session. */
  sessionFile?: string;
  /** Credential values to redact from what tools write down (spill files), besides the key shapes shared/redact.ts knows. */
  secrets?: readonly string[];
  /** Runs commands inside a sandbox; absent: run as is. */
  wrapCommand?: WrapCommand;
  /**
   * Real paths a recursive read (grep, list_files, glob) never enters on its way: credential
   * folders, harness's own state, /proc and /sys. One the search starts inside is not skipped
   * (the policy already allowed that).
   */
  unwalked?: string[];
  /**
   * With a network allowlist (sandbox.network): whether a host and port may be reached, asking
   * the person where one can be asked. web_fetch follows it as sandboxed commands do.
   */
  network?: NetworkJudge;
}

/** The session's network allowlist, as a tool sees it (permissions/sandbox-network.ts). */
export interface NetworkJudge {
  readonly mode: "on" | "off" | "list";
  judge(
    host: string,
    port: number,
    via: "http" | "connect",
    /** Who asks (`web_fetch https://...`): named in the question and the session's record. */
    origin?: { command?: string },
  ): Promise<{ allowed: true } | { allowed: false; why: string }>;
  /** The connections `command` was refused since `since` (ISO time), one line each, for its result. */
  refusalsOf?(command: string, since: string): string[];
}

/** An open file's identity (from fstat): device and inode, and how many names (hard links) it has. */
export interface OpenedFile {
  dev: number;
  ino: number;
  nlink: number;
}

/** What a tool handler gets besides its arguments: the session's part, and the run's and the call's. Tools never read process.cwd(). */
export interface ToolContext extends SessionToolContext {
  cwd: string;
  signal: AbortSignal;
  /** Per-run state shared by tools (e.g. which files the model has read, and when). */
  state: Map<string, unknown>;
  /** The id of the call being run (names its spill file). */
  callId?: string;
  /**
   * The permission check again, at the moment a file tool opens its file: `real` is where the
   * file really is then. Returns why it may not be used, or undefined. Set per call by the loop
   * from the approval (ApprovalDecision.checkAtUse); absent: no check. Called again with
   * `opened`, the file as opened, when it has more than one name: then only its other names are
   * judged (a hard link to a file a deny rule covers is refused: permissions/hard-links.ts).
   */
  checkAtUse?(real: string, access: "read" | "write", opened?: OpenedFile): Promise<string | undefined>;
  /**
   * Sends an event into the run's stream while the call works, in order with the run's own
   * (a subagent's progress, wrapped by the task tool). Set per call by the loop.
   */
  emit?(event: AgentEvent): void;
}

/**
 * What a call touches, declared by its tool as a function of the validated input: the files it
 * reads or writes (absolute, or relative to cwd), the shell command it runs, the URL it fetches.
 * The permission policy, the approver and the check at the moment of use judge these, never an
 * argument's name or a tool's name. `{}` says the call touches none of them (todo).
 */
export interface ToolEffects {
  reads?: string[];
  writes?: string[];
  command?: string;
  fetches?: string;
}

/** A tool's answer. `content` goes to the model; `summary` is the one-line trace for people. */
export interface ToolOutput {
  content: string;
  isError?: boolean;
  summary?: string;
  /** A unified diff of what the call changed, for the terminal. */
  diff?: string;
  /** One line for the person, not the model (a language server's new errors after an edit), shown under the call. */
  notice?: string;
  /** Images for the model besides the text (read_file on a picture). */
  images?: ImagePart[];
  /** Tokens the tool itself spent on model calls (a subagent's run), by model: counted in the run's usage. */
  spent?: ModelUsage[];
  /**
   * Absolute paths (as named, not through symlinks) of the files the call changed, for after-edit
   * hooks (ToolHook). write_file and edit_file set it. bash does not: which files a command
   * changed takes a scan of the workspace after every command (undo snapshots once per turn,
   * before the first change, not per call), so a hook that wants a command's changes scans itself.
   */
  changedFiles?: string[];
  /**
   * The call failed in a way no other call can get past (the sandbox cannot start, so no command
   * can run): why, and what the user can do. The run stops after this batch's results are kept,
   * with this as its error, rather than letting the model answer as if it had run something.
   */
  stopsRun?: string;
  /**
   * The call ends the run as finished, after this batch's results are kept, with no further model
   * call (RunEnding).
   */
  endsRun?: RunEnding;
}

/**
 * Why a call ends its run as finished: it hands the turn back to the person (`turn`: the plan tool,
 * whose plan waits for their choice), or it gave the run's final answer, validated (`answer`: the
 * final-answer tool of `--json-schema`, whose value is the `done` event's `structured_output`).
 * One field for both, so the loop has one way out after a batch, not one per tool.
 */
export type RunEnding = { kind: "turn" } | { kind: "answer"; value: unknown };

/** A tool: its schema and handler side by side, declared once. */
// biome-ignore lint/suspicious/noExplicitAny: a Tool[] holds tools of every input type; `unknown` would make run() uncallable
export interface Tool<Input = any> {
  name: string;
  description: string;
  kind: ToolKind;
  /**
   * Whether a call may change the workspace's files; undo snapshots the workspace before the
   * first such call of a turn. Defaults to any kind but `read`; an `execute` tool that only
   * reaches out (web_fetch) says false, so it does not cost a snapshot.
   */
  changesFiles?: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: the schema's input side (before parsing) is whatever the model sent
  input: z.ZodType<Input, any>;
  /**
   * The JSON Schema the model sees, when it does not come from `input`: tools declared
   * elsewhere (MCP servers) bring their own schema and validate their own arguments.
   */
  parameters?: Record<string, unknown>;
  /** One line naming what a call does (`bash> ls`, `read src/a.ts`), shown in traces and approvals. */
  describe?(input: Input, cwd: string): string;
  /** Calls with the same key run one after another, in order (e.g. two edits of one file). */
  lockKey?(input: Input, cwd: string): string | undefined;
  /**
   * What a call touches (ToolEffects). A `read` or `edit` tool without it is asked about in
   * every mode: nothing can tell which files it would use.
   */
  effects?(input: Input, cwd: string): ToolEffects;
  /** The change a call would make, as a unified diff, for the approval question; computed with the tool's own logic. */
  preview?(input: Input, cwd: string): Promise<string | undefined>;
  /** The plan a call sets (the todo tool), which every compaction keeps (core/compaction-contract.ts). */
  plan?(input: Input): TodoItem[];
  /** The Markdown plan a call proposes (the plan tool), which every compaction keeps too. */
  proposedPlan?(input: Input): string;
  run(input: Input, context: ToolContext): Promise<ToolOutput | string>;
}

export function defineTool<Schema extends z.ZodType>(tool: {
  name: string;
  description: string;
  kind: ToolKind;
  changesFiles?: boolean;
  input: Schema;
  parameters?: Record<string, unknown>;
  describe?(input: z.infer<Schema>, cwd: string): string;
  lockKey?(input: z.infer<Schema>, cwd: string): string | undefined;
  effects?(input: z.infer<Schema>, cwd: string): ToolEffects;
  preview?(input: z.infer<Schema>, cwd: string): Promise<string | undefined>;
  plan?(input: z.infer<Schema>): TodoItem[];
  proposedPlan?(input: z.infer<Schema>): string;
  run(input: z.infer<Schema>, context: ToolContext): Promise<ToolOutput | string>;
}): Tool<z.infer<Schema>> {
  return tool as Tool<z.infer<Schema>>;
}

/** Whether a call of `tool` may change the workspace's files (see Tool.changesFiles). */
export function mayChangeFiles(tool: Tool): boolean {
  return tool.changesFiles ?? tool.kind !== "read";
}

/** The spec the model sees. The schema is generated, never written twice. */
export function toToolSpec(tool: Tool): ToolSpec {
  if (tool.parameters) return { name: tool.name, description: tool.description, parameters: tool.parameters };
  const { $schema: _omit, ...parameters } = z.toJSONSchema(tool.input, { io: "input" }) as Record<string, unknown>;
  return { name: tool.name, description: tool.description, parameters };
}

/** Why arguments were rejected before the tool ran. */
export type ArgumentProblem = { kind: "invalid_json" | "invalid_arguments"; message: string };

/** Parses raw argument JSON and validates it against the tool's schema. */
export function parseArguments(
  tool: Tool,
  raw: string,
): { ok: true; input: unknown } | { ok: false; problem: ArgumentProblem } {
  let json: unknown;
  try {
    json = raw.trim() === "" ? {} : JSON.parse(raw);
  } catch (error) {
    return { ok: false, problem: { kind: "invalid_json", message: (error as Error).message } };
  }
  const parsed = tool.input.safeParse(json);
  if (!parsed.success)
    return { ok: false, problem: { kind: "invalid_arguments", message: z.prettifyError(parsed.error) } };
  return { ok: true, input: parsed.data };
}

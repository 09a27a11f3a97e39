// The one way a session is built: settings, provider, permissions and sandbox, extensions,
// system prompt, recorder and hooks. One-shot, stream-json, chat and ACP are thin modes over it
// (batch children are one-shot CLI runs), and each reads its events from `run`, the single
// point where the event stream is transformed (redacted) before anyone sees it.
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { loadConfigFile, type HarnessConfig } from "./config-file.ts";
import { ConfigError, NoProviderError, stateDir, type ProviderChoice } from "./config.ts";
import { resolveProvider } from "./resolve-provider.ts";
import type { CompactionResult } from "./core/compaction.ts";
import type { TodoItem } from "./core/event-schema.ts";
import type { AgentEvent, RunResult } from "./core/events.ts";
import type { ModelUsage, ToolCallPart, Usage, UserContent } from "./core/messages.ts";
import { formatTokens, parsePositiveInteger } from "./core/helpers.ts";
import { stripControlSequences } from "./core/control-chars.ts";
import { redactText, secretValuesOf } from "./core/redact.ts";
import { redactEvents } from "./core/stream-redactor.ts";
import { describeCall, type ApproveFn } from "./core/run-tools.ts";
import { buildSystemPrompt, type PromptOverrides } from "./core/system-prompt.ts";
import { mayChangeFiles, type Tool } from "./core/tool.ts";
import { loadExtensions } from "./extensions.ts";
import { checkNames, reportNameProblems } from "./settings/check-names.ts";
import { HookedAgent } from "./hooks/hooked-agent.ts";
import type { McpServerConfig } from "./mcp/config.ts";
import { createApprover, type ApproverOptions, type AskApprovalFn } from "./permissions/approver.ts";
import { settleFolderTrust, type TrustReview } from "./permissions/folder-trust.ts";
import {
  PermissionSetupError,
  setupPermissions,
  withProjectRules,
  withReadableFolders,
  type PermissionFlags,
} from "./permissions/setup-permissions.ts";
import { findPromptCommands, type PromptCommand } from "./prompts/custom-commands.ts";
import { findAgents } from "./prompts/agents.ts";
import { activeSkills, findSkills, type Skill } from "./prompts/skills.ts";
import { liveContextWindow, resolveContextWindow } from "./providers/context-window.ts";
import { MIN_CONTEXT_WINDOW } from "./providers/model-info.ts";
import { createProvider } from "./providers/create-provider.ts";
import type { ProviderSettings } from "./providers/index.ts";
import { probeSandbox } from "./sandbox/detect-sandbox.ts";
import { planThinking, type ThinkingLevel } from "./providers/thinking.ts";
import { providerChoiceFor, startRecorder } from "./stored-sessions.ts";
import type { LockedSession } from "./session/session-lock.ts";
import { DEFAULT_SUBAGENT_DEPTH, taskToolFor } from "./subagents.ts";
import { readSession, type SessionData } from "./session/session-reader.ts";
import type { SessionRecorder } from "./session/session-recorder.ts";
import { BackgroundJobs } from "./tools/background-jobs.ts";
import { closeHosted } from "./tools/command-host.ts";
import { codingTools } from "./tools/index.ts";
import { todoEvents } from "./tools/todo.ts";
import {
  applyPlan,
  planRedo,
  planUndo,
  snapshotsFor,
  TurnSnapshots,
  UndoError,
  type UndoPlan,
  type UndoResult,
} from "./undo.ts";

/** What a mode decides; everything else comes from the environment, config and settings files. */
export interface SessionOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Provider flags; a resumed session's provider and model are the defaults below them. */
  choice: ProviderChoice;
  /** The stored session to continue, locked for this process (the session owns the lock from here); absent for a new one. */
  resumed?: LockedSession;
  maxTurns?: number;
  /** `--system-prompt` and `--append-system-prompt`. */
  systemPrompt?: PromptOverrides;
  /** The context window in tokens (`--context-window`); else HARNESS_CONTEXT_WINDOW, the model, the server, the table. */
  contextWindow?: number;
  permissions: PermissionFlags;
  /**
   * Who answers what the rules leave open: a person at the terminal (`ask`), a front end with its
   * own dialogue (`delegate`, the editor), or nobody (refused).
   */
  approval:
    | { ask: AskApprovalFn }
    | { delegate: ApproveFn }
    | { nobody: true; onRefused?: ApproverOptions["onRefused"] };
  /** An editor's MCP servers, added to the configured ones. */
  mcpServers?: McpServerConfig[];
  /** Lines typed while a run works (the chat's queue; see AgentOptions.takeQueuedMessages). */
  takeQueuedMessages?: () => string[];
  /**
   * Names a command file cannot take (the chat's own slash commands): such a file is left out
   * with a warning. Given by the mode, so the factory imports nothing of the chat's.
   */
  reservedCommands: readonly string[];
  /**
   * At a terminal: asked when no provider is configured; true means use the local model
   * (ui/local-offer.ts puts the question). Absent: the missing provider is an error.
   */
  offerLocalModel?: () => Promise<boolean>;
  /**
   * Folder trust for this folder's hooks, MCP servers and allow rules: `flag` is `--trust`;
   * `ask` puts the question to a person (chat); without either, only a trust given before counts.
   */
  trust: { flag: boolean; ask?: (review: TrustReview) => Promise<boolean> };
  /** Warnings for the person (the sandbox is missing, a settings file was ignored). */
  warn(message: string): void;
}

/** A session cannot be built; the message says what to fix, the exit code is the CLI's. */
export class SessionSetupError extends Error {
  override name = "SessionSetupError";

  constructor(
    message: string,
    readonly exitCode: 1 | 2,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * One built session: the runs it records, and the controls the chat's slash commands use. Its
 * Agent stays inside: a mode runs prompts only through `run`, the one redaction point.
 */
export interface Session {
  /** The session's id (changes with `startNew` and `resume`). */
  readonly id: string;
  readonly settings: ProviderSettings;
  /** The adapter and the model replies come from now (`/model` changes it). */
  readonly model: { provider: string; model: string };
  /** The context window compaction works within, when known. */
  readonly contextWindow: number | undefined;
  /** The tools the model is offered (an editor shows their kinds). */
  readonly tools: readonly Tool[];
  /** The one-line trace a call shows (`bash> ls`), by the session's tools and folder, for a replayed conversation. */
  describeCall(call: ToolCallPart): string;
  /** Tokens spent in this session so far (a resumed session's included). */
  readonly usage: Usage;
  /** The same, by the model that spent them (subagents may run on other models). */
  readonly spent: readonly ModelUsage[];
  /** The session file (it exists once the first entry is written). */
  readonly path: string;
  /** Whether this folder's project settings and skills are in use (permissions/folder-trust.ts). */
  readonly isFolderTrusted: boolean;
  /** The skills the system prompt lists, and the project's left out because the folder is not trusted. */
  readonly skills: { listed: readonly Skill[]; untrusted: readonly Skill[] };
  /** The model's plan now (the last todo call's list): a resumed session's, empty after `startNew`. */
  readonly todo: readonly TodoItem[];
  /** Slash commands that expand into a prompt: `.harness/commands/*.md`, `$HARNESS_HOME/commands/*.md`, /init. */
  readonly promptCommands: readonly PromptCommand[];
  /** Processes bash started with `background: true`; they outlive /clear and /resume, and end with `close`. */
  readonly background: BackgroundJobs;
  /** Runs one prompt; every event is redacted, then recorded, then yielded. */
  run(prompt: string | UserContent, signal?: AbortSignal): AsyncGenerator<AgentEvent, RunResult>;
  /** Summarises the older conversation now (`/compact`), recording its events like a run's. */
  compact(focus: string): AsyncGenerator<AgentEvent, CompactionResult>;
  /** Replies come from this model from now on. */
  /** Goes on with another model of the same provider; returns what changed with it (context window, thinking), for people. */
  switchModel(model: string): Promise<string[]>;
  /** The model thinks this much from now on (`/thinking`); returns the notice when the API cannot carry it. */
  setThinking(level: ThinkingLevel): Promise<string | undefined>;
  /** Goes on as a new, empty session (`/clear`); the old one stays on disk. */
  startNew(): void;
  /** Goes on as a stored session (`/resume`), locked for this process, with its settings (see `settingsFor`). */
  resume(stored: LockedSession, settings: ProviderSettings): Promise<void>;
  /** Works out undoing the last `turns` turns (`/undo`): the files that will change. Throws UndoError. */
  planUndo(turns: number): Promise<UndoPlan>;
  /** Works out reversing the latest undo (`/redo`). Throws UndoError. */
  planRedo(): Promise<UndoPlan>;
  /** Does a planned undo or redo: the files, the session's record, and the conversation the model sees. */
  applyUndo(plan: UndoPlan): Promise<UndoResult | undefined>;
  /** Provider settings for a stored session, resolved as `-r` would resolve them (flags and environment win). */
  settingsFor(session: SessionData | undefined): ProviderSettings;
  close(): Promise<void>;
}

/** Builds a session; throws SessionSetupError for what the user must fix (a resumed session's lock is then given back). */
export async function createSession(sessionOptions: SessionOptions): Promise<Session> {
  try {
    return await buildSession(sessionOptions);
  } catch (error) {
    sessionOptions.resumed?.lock.release();
    throw error;
  }
}

async function buildSession(sessionOptions: SessionOptions): Promise<Session> {
  const { cwd, env, resumed } = sessionOptions;
  // Warnings carry other programs' words (hook output, an MCP server's error, a settings file): no
  // key and no escape sequence of theirs reaches the terminal or an editor's log.
  const options = {
    ...sessionOptions,
    warn: (message: string) => sessionOptions.warn(redactText(stripControlSequences(message), secretValuesOf(env))),
  };
  // Whether a sandbox works here, found out without blocking while the settings load (the CLI
  // starts this trial at launch); setupPermissions then has the answer at hand.
  const sandboxTrial = options.permissions.sandbox === "off" ? undefined : probeSandbox();
  const { settingsFor, config } = await settingsResolver(options);
  const settings = settingsFor(resumed);
  await sandboxTrial;
  let permissions = setupPermissionsOrThrow(options);
  for (const warning of permissions.warnings) options.warn(`warning: ${warning}`);
  // The folder's hooks, MCP servers and allow rules only once it is trusted (permissions/folder-trust.ts).
  const found = findSkills({ cwd, harnessHome: stateDir(env), home: permissions.policy.home }, (message) =>
    options.warn(`warning: ${message}`),
  );
  const trust = await settleFolderTrust({
    cwd,
    harnessHome: stateDir(env),
    home: permissions.policy.home,
    trustedFolders: permissions.trustedFolders,
    skills: found.project,
    ...options.trust,
  });
  if (trust.report) options.warn(trust.report);
  if (trust.isTrusted) permissions = withProjectRules(permissions);
  const skills = activeSkills(found, trust.isTrusted);
  const promptCommands = findPromptCommands({ cwd, harnessHome: stateDir(env) }, options.reservedCommands, (message) =>
    options.warn(`warning: ${message}`),
  );
  // The model is told to read a skill's files: that never asks, wherever the skill lives.
  permissions = withReadableFolders(
    permissions,
    skills.map((skill) => dirname(skill.path)),
  );
  // A server that stays silent is reported while the call waits (providers/call-limits.ts).
  const providerFor = (chosen: ProviderSettings) => createProvider({ ...chosen, onWait: options.warn });
  const provider = await providerFor(settings);
  const thinkingNotice = planThinking(settings).notice;
  if (thinkingNotice) options.warn(thinkingNotice);
  const windowOverride = options.contextWindow ?? windowFromEnv(env);
  // Started now, never waited for by a new conversation: a local server may be probed for its
  // window (context-window.ts), and a local model knows its own (loading it, which its first
  // call does anyway). A resumed conversation may already be near the window, so it waits.
  const window = liveContextWindow(
    settings,
    windowOverride !== undefined
      ? Promise.resolve(windowOverride)
      : "contextWindow" in provider && typeof provider.contextWindow === "function"
        ? (provider.contextWindow as () => Promise<number>)().catch(() => resolveContextWindow(settings))
        : undefined,
  );
  if (resumed) await window.known;
  // Hooks and MCP servers' tools; servers start now, in parallel, since the first request lists their tools.
  const extensions = await loadExtensions({
    cwd,
    env,
    commandEnv: permissions.env,
    isProjectTrusted: trust.isTrusted,
    warn: options.warn,
    extraServers: options.mcpServers,
  });
  const ownTools = [...codingTools, ...extensions.tools];
  const agents = findAgents({ cwd, harnessHome: stateDir(env), home: permissions.policy.home }, (message) =>
    options.warn(`warning: ${message}`),
  );
  const taskTool = taskToolFor({
    cwd,
    env,
    agents,
    parent: () => agent,
    tools: ownTools,
    maxDepth: config.maxSubagentDepth ?? DEFAULT_SUBAGENT_DEPTH,
    settings: () => current,
    providerFor,
    // The user's --system-prompt and --append-system-prompt hold for children too; their part comes last.
    systemPrompt: (given, append) =>
      systemPromptFor(
        cwd,
        [...given],
        { ...options.systemPrompt, append: [options.systemPrompt?.append, append].filter(Boolean).join("\n\n") },
        skills,
      ),
    parentSessionId: () => recorder.id,
    redact: (events) => outgoing(events),
  });
  // The task tool after the built-in ones, before MCP servers' (whose lists vary).
  const tools = taskTool ? [...codingTools, taskTool, ...extensions.tools] : ownTools;
  // Every rule and matcher names a tool of this session, or it is said (and headless, a missing guard stops the run).
  const nameProblems = checkNames(
    { allow: [...permissions.policy.allow, ...permissions.projectAllow], deny: permissions.policy.deny },
    extensions.declaredHooks,
    { tools, servers: extensions.serverNames },
  );
  const stopReason = reportNameProblems(nameProblems, "nobody" in options.approval, options.warn);
  if (stopReason) {
    await extensions.close();
    throw new SessionSetupError(stopReason, 2);
  }
  const approve = createApprover({
    policy: permissions.policy,
    cwd,
    ...("ask" in options.approval ? { ask: options.approval.ask } : {}),
    ...("delegate" in options.approval ? { delegate: options.approval.delegate } : {}),
    ...("nobody" in options.approval ? { onRefused: options.approval.onRefused } : {}),
  });
  let recorder = startRecorder(env, cwd, settings, resumed);
  const turnSnapshots = new TurnSnapshots({ env, cwd, warn: options.warn });
  const sessionState = new Map<string, unknown>();
  const background = BackgroundJobs.into(sessionState);
  // The last gate before a reply's tools run (all of a reply's calls are decided before any runs):
  // the first allowed call that may change files waits here for the turn's snapshot.
  const approveAndSnapshot: ApproveFn = async (request, signal) => {
    const decision = await approve(request, signal);
    if (decision.allow && mayChangeFiles(request.tool))
      await turnSnapshots.beforeChange(recorder.id, (commit) => recorder.recordSnapshot(commit));
    return decision;
  };
  const agent = new HookedAgent(
    {
      sessionId: recorder.id,
      messages: resumed?.messages,
      provider,
      tools,
      system: systemPromptFor(cwd, tools, options.systemPrompt, skills),
      cwd,
      maxTurns: options.maxTurns,
      maxTokens: settings.maxTokens,
      retry: retryPolicyFrom(env),
      context: window.context,
      toolContext: {
        env: permissions.env,
        secrets: permissions.secrets,
        wrapCommand: permissions.wrapCommand,
        unwalked: permissions.unwalked,
        sessionState,
        spillDir: recorder.writer.spillDir,
      },
      approve: approveAndSnapshot,
      takeQueuedMessages: options.takeQueuedMessages,
    },
    extensions.hooks,
  );
  await extensions.hooks.sessionStart(resumed ? "resume" : "startup");

  let current = settings;
  let todo: readonly TodoItem[] = resumed?.todo ?? [];
  /**
   * The one point where the event stream is transformed before anyone sees it: the recorder,
   * the terminal, JSON output and the editor all get these events. Keys never reach them;
   * the model's own copy of the conversation is untouched.
   */
  const outgoing = <R>(events: AsyncGenerator<AgentEvent, R>) => redactEvents(events, permissions.secrets);
  /**
   * A session file that cannot be written (a full disk) stops the run: the agent is aborted and
   * its `done` comes out as an error saying so (session/session-store.ts), so a headless run
   * exits 1 with that line and the file stays resumable.
   */
  async function* recorded<R>(
    start: (signal: AbortSignal) => AsyncGenerator<AgentEvent, R>,
    signal?: AbortSignal,
  ): AsyncGenerator<AgentEvent, R> {
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    if (signal?.aborted) stop.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    const asFailed = <T>(value: T): T =>
      recorder.failure && (value as { type?: unknown })?.type === "done"
        ? { ...value, reason: "error", error: recorder.failure }
        : value;
    const stream = outgoing(start(stop.signal));
    const withTodo = todoEvents(); // the plan the todo tool sets, as its own event
    try {
      for (let step = await stream.next(); ; step = await stream.next()) {
        if (step.done) return asFailed(step.value);
        for (const event of withTodo(asFailed(step.value))) {
          if (event.type === "todo") todo = event.items;
          recorder.record(event);
          if (recorder.failure) stop.abort();
          yield event;
        }
      }
    } finally {
      signal?.removeEventListener("abort", onAbort);
      await stream.return(undefined as R); // a consumer that stops early stops the run too
    }
  }
  /** This session as its file has it (undo works from the record: turns, snapshots, earlier undos). */
  const storedSelf = (): SessionData => {
    if (!existsSync(recorder.writer.path)) throw new UndoError("nothing to undo: no turn has run in this session yet");
    return readSession(recorder.writer.path);
  };
  const moveTo = (next: SessionRecorder) => {
    recorder.close();
    recorder = next;
    agent.configure({
      sessionId: recorder.id,
      toolContext: { ...agent.options.toolContext, spillDir: recorder.writer.spillDir },
    });
  };

  return {
    get id() {
      return recorder.id;
    },
    get model() {
      return { provider: agent.options.provider.name, model: agent.options.provider.model };
    },
    get contextWindow() {
      return agent.options.context?.window;
    },
    tools,
    describeCall: (call) => describeCall(call, agent.options.tools, agent.options.cwd),
    get settings() {
      return current;
    },
    get usage() {
      return recorder.usage;
    },
    get spent() {
      return recorder.spent;
    },
    get path() {
      return recorder.writer.path;
    },
    get todo() {
      return todo;
    },
    isFolderTrusted: trust.isTrusted,
    skills: { listed: skills, untrusted: trust.isTrusted ? [] : found.project },
    promptCommands,
    background,
    async *run(prompt, signal) {
      turnSnapshots.newTurn();
      try {
        return yield* recorded((stop) => agent.prompt(prompt, stop), signal);
      } finally {
        await turnSnapshots.afterTurn(recorder.id, (commit) => recorder.recordSnapshot(commit));
      }
    },
    compact: (focus) => recorded((stop) => agent.compact(focus, stop)),
    async switchModel(model) {
      // A window configured or probed for the old model is not the new one's (compaction would
      // use the wrong one): resolved again, unless --context-window or the environment fixed it.
      // So are prices configured for it (config.json `prices`): the new model is priced from the table.
      const next = {
        ...current,
        model,
        prices: undefined,
        ...(windowOverride === undefined ? { contextWindow: undefined } : {}),
      };
      agent.configure({ provider: await providerFor(next) });
      const before = window.context.window;
      if (windowOverride === undefined) window.context.window = await resolveContextWindow(next);
      current = next;
      recorder.recordModelChange(next.name, next.model, next.baseUrl, next.api);
      const changes = [
        window.context.window === before
          ? `context window ${formatTokens(before)}`
          : `context window ${formatTokens(window.context.window)} (was ${formatTokens(before)})`,
      ];
      const thinking = planThinking(next).notice;
      if (thinking) changes.push(thinking);
      return changes;
    },
    async setThinking(level) {
      const next = { ...current, thinking: level };
      agent.configure({ provider: await providerFor(next) });
      current = next;
      return planThinking(next).notice;
    },
    startNew() {
      moveTo(startRecorder(env, cwd, current, undefined));
      agent.replaceMessages([]);
      todo = [];
    },
    async resume(stored, settings) {
      const isSameProvider =
        settings.name === current.name &&
        settings.model === current.model &&
        settings.baseUrl === current.baseUrl &&
        settings.api === current.api;
      try {
        if (!isSameProvider) agent.configure({ provider: await providerFor(settings) });
      } catch (error) {
        stored.lock.release();
        throw error;
      }
      moveTo(startRecorder(env, cwd, settings, stored));
      current = settings;
      agent.replaceMessages(stored.messages);
      todo = stored.todo;
    },
    planUndo: async (turns) => planUndo(storedSelf(), turns, snapshotsFor(env, cwd, recorder.id)),
    planRedo: async () => planRedo(storedSelf(), snapshotsFor(env, cwd, recorder.id)),
    async applyUndo(plan) {
      const result = await applyPlan(plan, snapshotsFor(env, cwd, recorder.id), (entry) => recorder.recordUndo(entry));
      agent.replaceMessages(readSession(recorder.writer.path).messages); // the reader is the one home of what undo leaves
      return result;
    },
    settingsFor,
    async close() {
      recorder.close();
      await background.close(); // before the helper is let go: its commands end with it
      closeHosted(permissions.wrapCommand);
      await extensions.close();
    },
  };
}

/**
 * How provider settings resolve for a session (a resumed one's provider and model are the
 * defaults below flags and environment); at a terminal with nothing configured, the local
 * model if the person wants it. Throws SessionSetupError.
 */
async function settingsResolver(options: SessionOptions): Promise<{
  settingsFor: (session: SessionData | undefined) => ProviderSettings;
  config: HarnessConfig;
}> {
  const { env, offerLocalModel, resumed } = options;
  const config = wrapConfigError(() => loadConfigFile(env));
  let choice = options.choice;
  const settingsFor = (session: SessionData | undefined) =>
    wrapConfigError(() => resolveProvider(providerChoiceFor(choice, env, session), env, config));
  if (offerLocalModel && isProviderMissing(() => settingsFor(resumed)) && (await offerLocalModel()))
    choice = { ...choice, provider: "local" };
  return { settingsFor, config };
}

/** Whether resolving settings fails for want of a provider (not for a broken config, which is reported as it is). */
function isProviderMissing(resolve: () => unknown): boolean {
  try {
    resolve();
    return false;
  } catch (error) {
    return error instanceof SessionSetupError && error.cause instanceof NoProviderError;
  }
}

function wrapConfigError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ConfigError)
      throw new SessionSetupError(error.message, error.isUsage ? 2 : 1, { cause: error });
    throw error;
  }
}

function setupPermissionsOrThrow(options: SessionOptions) {
  try {
    return setupPermissions(options.permissions, {
      cwd: options.cwd,
      env: options.env,
      harnessHome: stateDir(options.env),
    });
  } catch (error) {
    if (error instanceof PermissionSetupError)
      throw new SessionSetupError(error.message, error.exitCode, { cause: error });
    throw error;
  }
}

/** The system prompt with this machine's facts: the one place they are gathered. */
function systemPromptFor(cwd: string, tools: Tool[], overrides: PromptOverrides | undefined, skills: Skill[]): string {
  const machine = {
    cwd,
    platform: `${process.platform} ${process.arch}`,
    shell: "bash",
    date: new Date().toISOString().slice(0, 10),
  };
  return buildSystemPrompt(
    machine,
    tools.map((tool) => tool.name),
    overrides,
    skills,
  );
}

function windowFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const value = env.HARNESS_CONTEXT_WINDOW;
  if (value === undefined) return undefined;
  const tokens = parsePositiveInteger(value);
  if (tokens === undefined) throw new SessionSetupError("HARNESS_CONTEXT_WINDOW takes a number of tokens", 2);
  if (tokens < MIN_CONTEXT_WINDOW)
    throw new SessionSetupError(`HARNESS_CONTEXT_WINDOW takes at least ${MIN_CONTEXT_WINDOW} tokens`, 2);
  return tokens;
}

/** Test and CI hook: HARNESS_RETRY_BASE_MS shortens the backoff between retries. */
function retryPolicyFrom(env: NodeJS.ProcessEnv) {
  const base = Number(env.HARNESS_RETRY_BASE_MS);
  return Number.isFinite(base) && base >= 0 && env.HARNESS_RETRY_BASE_MS
    ? { maxRetries: 4, baseDelayMs: base }
    : undefined;
}

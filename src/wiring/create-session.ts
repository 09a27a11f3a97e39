import { dirname } from "node:path";
import type { TodoItem } from "../core/event-schema.ts";
import type { AgentEvent } from "../core/events.ts";
import { loadInstructions } from "../core/instruction-files.ts";
import type { ModelUsage, ToolCallPart, Usage } from "../core/messages.ts";
import { type ApproveFn, describeCall } from "../core/run-tools.ts";
import type { PromptOverrides } from "../core/system-prompt.ts";
import { mayChangeFiles, type Tool } from "../core/tool.ts";
import type { SessionEndReason } from "../hooks/command-hooks.ts";
import { HookedAgent } from "../hooks/hooked-agent.ts";
import type { ApprovalModeSwitch } from "../permissions/approval-mode.ts";
import { settleFolderTrust, type TrustOptions } from "../permissions/folder-trust.ts";
import type { SandboxNetwork } from "../permissions/sandbox-network.ts";
import {
  type PermissionFlags,
  PermissionSetupError,
  setupPermissions,
  withProjectRules,
  withReadableFolders,
} from "../permissions/setup-permissions.ts";
import type { NamedAgent } from "../prompts/agents.ts";
import { findPromptCommands, type PromptCommand } from "../prompts/custom-commands.ts";
import { activeSkills, findSkills, type Skill } from "../prompts/skills.ts";
import { createProvider } from "../providers/create-provider.ts";
import type { ProviderSettings } from "../providers/index.ts";
import { planThinking } from "../providers/thinking.ts";
import { probeSandbox } from "../sandbox/detect-sandbox.ts";
import type { LockedSession } from "../session/session-lock.ts";
import type { SessionData } from "../session/session-reader.ts";
import { checkNames, reportNameProblems } from "../settings/check-names.ts";
import type { McpServerConfig } from "../settings/mcp-servers.ts";
import { showControlChars } from "../shared/control-chars.ts";
import { redactText, secretValuesOf } from "../shared/redact.ts";
import { startTelemetry } from "../telemetry/start-telemetry.ts";
import type { AnswerSchema } from "../tools/answer-schema.ts";
import { BackgroundJobs } from "../tools/commands/background-jobs.ts";
import { policyApprover, type SessionApproval } from "./approval-hooks.ts";
import { type HarnessConfig, loadConfigFile } from "./config-file.ts";
import { ConfigError, NoProviderError, type ProviderChoice, stateDir } from "./defaults.ts";
import { type Extensions, loadExtensions } from "./extensions.ts";
import { fallbackSettings, otherProviderOf } from "./fallback-models.ts";
import { workspaceRefusal } from "./home-workspace.ts";
import { systemPromptFor } from "./machine-prompt.ts";
import { outgoingEvents } from "./outgoing-events.ts";
import { resolveProvider } from "./resolve-provider.ts";
import { type SessionControls, type SessionState, sessionControls } from "./session-controls.ts";
import { askOf, closeSandbox, commandContext, recordConnections } from "./session-sandbox.ts";
import { sessionTools } from "./session-tools.ts";
import { contextWindowFor } from "./session-window.ts";
import { type SetupView, setupView } from "./setup-view.ts";
import { providerChoiceFor, startRecorder } from "./stored-sessions.ts";
import { childPlaces } from "./subagent-worktree.ts";
import { TurnSnapshots } from "./undo-redo.ts";
import { retryPolicyFrom, windowFromEnv } from "./variables.ts";

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
  /** Who answers what the rules leave open (approval-hooks.ts). */
  approval: SessionApproval;
  /** An editor's MCP servers, added to the configured ones. */
  mcpServers?: McpServerConfig[];
  /** How long setup waits for MCP servers still starting (a one-shot: extensions.ts oneShotMcpWaitMs); else none. */
  mcpStartupWaitMs?: number;
  /** Lines typed while a run works (the chat's queue; see AgentOptions.takeQueuedMessages). */
  takeQueuedMessages?: () => string[];
  /** Names a command file cannot take (the chat's slash commands: given by the mode), left out with a warning. */
  reservedCommands: readonly string[];
  /** At a terminal, asked when no provider is configured: true means the local model (ui/local-offer.ts). */
  offerLocalModel?: () => Promise<boolean>;
  /**
   * Folder trust for this folder's hooks, MCP servers and allow rules: `flag` is `--trust`;
   * `ask` puts the question to a person (chat); without either, only a trust given before counts.
   */
  trust: { flag: boolean; ask?: TrustOptions["ask"] };
  /** Warnings for the person (the sandbox is missing, a settings file was ignored). */
  warn(message: string): void;
  /** The answer's shape (`--json-schema`, a task's `outputSchema`): the final-answer tool (tools/final-answer.ts). */
  answerSchema?: AnswerSchema;
  /** `--fallback-model`'s entries, `[provider:]model`; absent: config.json `fallbackModels` (wiring/fallback-models.ts). */
  fallbackModels?: readonly string[];
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
export interface Session extends SessionControls {
  /** The session's id (changes with `startNew` and `resume`). */
  readonly id: string;
  readonly settings: ProviderSettings;
  /** The adapter and the model replies come from now (`/model` changes it). */
  readonly model: { provider: string; model: string };
  /** The context window compaction works within, when known. */
  readonly contextWindow: number | undefined;
  /** The tools the model is offered (an editor shows their kinds). */
  readonly tools: readonly Tool[];
  /** The approval mode now, which an editor or the chat may switch (permissions/approval-mode.ts). */
  readonly approvalMode: ApprovalModeSwitch;
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
  /** With the Linux sandbox: its network, grants and recent connections (`/network`; docs/network.md). */
  readonly network?: SandboxNetwork;
  /** The skills the system prompt lists, and the project's left out because the folder is not trusted. */
  readonly skills: { listed: readonly Skill[]; untrusted: readonly Skill[] };
  /** The model's plan now (the last todo call's list): a resumed session's, empty after `startNew`. */
  readonly todo: readonly TodoItem[];
  /** Slash commands that expand into a prompt: `.harness/commands/*.md`, `$HARNESS_HOME/commands/*.md`, /init. */
  readonly promptCommands: readonly PromptCommand[];
  /** Processes bash started with `background: true`; they outlive /clear and /resume, and end with `close`. */
  readonly background: BackgroundJobs;
  readonly languageServers: Extensions["lsp"]["status"]; // their state now, for /lsp (src/lsp)
  /** Provider settings for a stored session, resolved as `-r` would resolve them (flags and environment win). */
  settingsFor(session: SessionData | undefined): ProviderSettings;
  readonly setup: SetupView; // what took effect and where it came from (/status, /permissions)
  /** Ends the session: its SessionEnd hooks run (told `reason`), then its recorder, processes and servers close. */
  close(reason?: SessionEndReason): Promise<void>;
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
  // The backstop after each mode's own folder check (--allow-home, a question): the state folder, credentials.
  const refusal = workspaceRefusal(cwd, env, true);
  if (refusal) throw new SessionSetupError(refusal, 2);
  // Warnings carry others' words (hook output, MCP errors, settings files): no key or escape of theirs gets out.
  const options = {
    ...sessionOptions,
    warn: (message: string) => sessionOptions.warn(redactText(showControlChars(message), secretValuesOf(env))),
  };
  // Whether a sandbox works here, probed while the settings load (the CLI starts it at launch), for setupPermissions.
  const sandboxTrial = options.permissions.sandbox === "off" ? undefined : probeSandbox();
  const { settingsFor, config } = await settingsResolver(options);
  const settings = settingsFor(resumed);
  const fallbacks = wrapConfigError(() =>
    fallbackSettings(options.fallbackModels ?? config.fallbackModels ?? [], settings, options.choice, env, config),
  );
  await sandboxTrial;
  const folder = await settleFolder(options);
  const { permissions, trust } = folder;
  const { providerFor, provider, window, windowOverride } = await modelFor(options, settings);
  // Hooks and MCP servers' tools; servers start now, in parallel and in the background (wiring/extensions.ts).
  const extensions = await loadExtensions({
    cwd,
    env,
    commandEnv: permissions.env,
    config,
    isProjectTrusted: trust.isTrusted,
    warn: options.warn,
    extraServers: options.mcpServers,
  });
  // Before the rules are checked against the tools: a rule's "did you mean" can then name a server's tool.
  if (options.mcpStartupWaitMs) await extensions.serversStarted(options.mcpStartupWaitMs);
  const { tools, agents } = sessionTools(options, folder, config.maxSubagentDepth, extensions, {
    parent: () => agent,
    settings: () => state.settings,
    providerFor,
    parentSessionId: () => state.recorder.id,
    redact: (events) => outgoing(events),
    hooks: extensions.hooks,
    placeFor: childPlaces({
      ...options,
      permissionFlags: options.permissions,
      permissions,
      hooks: extensions.hooks,
      ...trust,
    }),
  });
  await checkRuleNames(options, permissions, extensions, tools);
  const state: SessionState = {
    recorder: startRecorder(env, cwd, settings, resumed),
    settings,
    todo: resumed?.todo ?? [],
    fallbacks,
    telemetry: await startTelemetry(env, options.warn, () => state.recorder.id),
  };
  recordConnections(permissions, state);
  const turnSnapshots = new TurnSnapshots({ env, cwd, warn: options.warn });
  const sessionState = new Map<string, unknown>();
  const background = BackgroundJobs.into(sessionState);
  const agent = new HookedAgent(
    {
      sessionId: state.recorder.id,
      messages: resumed?.messages,
      provider,
      tools,
      lateTools: extensions.lateTools,
      system: systemPromptFor(cwd, tools, options.systemPrompt, folder.skills, folder.instructions),
      cwd,
      maxTurns: options.maxTurns,
      maxTokens: settings.maxTokens,
      retry: retryPolicyFrom(env),
      context: window.context,
      toolContext: {
        ...commandContext(permissions),
        sessionState,
        spillDir: state.recorder.writer.spillDir,
        sessionFile: state.recorder.writer.path,
      },
      approve: snapshottingApprover(options, extensions.hooks, permissions, turnSnapshots, state),
      takeQueuedMessages: options.takeQueuedMessages,
      toolHooks: [extensions.lsp.hook],
      ...(options.answerSchema ? { answerTool: tools.at(-1)?.name } : {}),
      fallBack: (error) => controls.fallBack(error),
      reminder: () => permissions.approvalMode.reminder(),
    },
    extensions.hooks,
  );
  await extensions.hooks.sessionStart(resumed ? "resume" : "startup");
  // The one transform of events before anyone (recorder, terminal, JSON, editor) sees them: no key gets out.
  const outgoing = <R>(events: AsyncGenerator<AgentEvent, R>) => outgoingEvents(events, permissions.secrets);
  const otherProvider = otherProviderOf(settings, options.choice, env, config);
  const parts = { agent, state, env, cwd, providerFor, window, windowOverride, turnSnapshots, outgoing, otherProvider };
  const controls = sessionControls({ ...parts, warn: options.warn });
  return sessionOf({ agent, state, controls, folder, background, settingsFor, extensions, agents });
}

/** The provider for the settings (and the maker of others, for /model and subagents), and its context window. */
async function modelFor(options: SessionOptions, settings: ProviderSettings) {
  // A server that stays silent is reported while the call waits (providers/call-limits.ts).
  const providerFor = (chosen: ProviderSettings) => createProvider({ ...chosen, onWait: options.warn });
  const provider = await providerFor(settings);
  for (const notice of settings.notices ?? []) options.warn(notice);
  const thinkingNotice = planThinking(settings).notice;
  if (thinkingNotice) options.warn(thinkingNotice);
  const windowOverride = options.contextWindow ?? wrapConfigError(() => windowFromEnv(options.env));
  const window = contextWindowFor(windowOverride, settings, provider);
  if (options.resumed) await window.known;
  return { providerFor, provider, window, windowOverride };
}

/** The session a mode gets: its controls, and views of the state that read it as it is now (getters). */
function sessionOf(parts: {
  agent: HookedAgent;
  state: SessionState;
  controls: SessionControls;
  folder: SettledFolder;
  background: BackgroundJobs;
  settingsFor: Session["settingsFor"];
  extensions: Extensions;
  agents: NamedAgent[];
}): Session {
  const { agent, state, folder, background, extensions } = parts;
  const { trust, permissions } = folder;
  return {
    ...parts.controls,
    get id() {
      return state.recorder.id;
    },
    get model() {
      return { provider: agent.options.provider.name, model: agent.options.provider.model };
    },
    get contextWindow() {
      return agent.options.context?.window;
    },
    tools: agent.options.tools,
    approvalMode: permissions.approvalMode,
    describeCall: (call) => describeCall(call, agent.options.tools, agent.options.cwd),
    get settings() {
      return state.settings;
    },
    get usage() {
      return state.recorder.usage;
    },
    get spent() {
      return state.recorder.spent;
    },
    get path() {
      return state.recorder.writer.path;
    },
    get todo() {
      return state.todo;
    },
    isFolderTrusted: trust.isTrusted,
    ...(permissions.network ? { network: permissions.network } : {}),
    skills: { listed: folder.skills, untrusted: trust.isTrusted ? [] : folder.found.project },
    promptCommands: folder.promptCommands,
    background,
    languageServers: extensions.lsp.status,
    settingsFor: parts.settingsFor,
    setup: setupView(permissions, extensions, agent.options.tools, parts.agents),
    async close(reason: SessionEndReason = "other") {
      await extensions.hooks.sessionEnd(reason);
      state.recorder.close();
      // Background commands end before the helper is let go; telemetry's last export is bounded (EXIT_FLUSH_LIMIT_MS).
      await Promise.all([background.close(), state.telemetry?.close()]);
      closeSandbox(permissions);
      await extensions.close();
    },
  };
}

/** What the folder gives a session: permissions (with the project's rules once trusted), trust, skills, prompt commands. */
type SettledFolder = Awaited<ReturnType<typeof settleFolder>>;

/** Permissions, then folder trust, then what a trusted folder adds; warnings as they come. */
async function settleFolder(options: SessionOptions) {
  const { cwd, env } = options;
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
  // Read once: the main agent's prompt and its subagents' share them (and their notices).
  const instructions = loadInstructions(cwd, {
    home: permissions.policy.home,
    harnessHome: stateDir(env),
    secretPaths: permissions.policy.secretPaths,
    warn: (message) => options.warn(`warning: ${message}`),
  });
  const commandPlaces = {
    cwd,
    harnessHome: stateDir(env),
    home: permissions.policy.home,
    secretPaths: permissions.policy.secretPaths,
  };
  const promptCommands = findPromptCommands(commandPlaces, options.reservedCommands, (message) =>
    options.warn(`warning: ${message}`),
  );
  // The model is told to read a skill's files: that never asks, wherever the skill lives.
  permissions = withReadableFolders(
    permissions,
    skills.map((skill) => dirname(skill.path)),
  );
  return { permissions, trust, found, skills, instructions, promptCommands };
}

/** Every rule and matcher names a tool of this session, or it is said (and headless, a missing guard stops the run). */
async function checkRuleNames(
  options: SessionOptions,
  permissions: SettledFolder["permissions"],
  extensions: Extensions,
  tools: Tool[],
): Promise<void> {
  const nameProblems = checkNames(
    {
      allow: [...permissions.policy.allow, ...permissions.projectAllow],
      deny: permissions.policy.deny,
      ask: permissions.policy.ask,
    },
    extensions.declaredHooks,
    { tools, servers: extensions.serverNames },
  );
  const stopReason = reportNameProblems(nameProblems, "nobody" in options.approval, options.warn);
  if (stopReason) {
    await extensions.close();
    throw new SessionSetupError(stopReason, 2);
  }
}

/**
 * The policy's approver, and the last gate before a reply's tools run (all of a reply's calls
 * are decided before any runs): the first allowed call that may change files waits here for the
 * turn's snapshot.
 */
function snapshottingApprover(
  options: SessionOptions,
  hooks: Extensions["hooks"],
  permissions: SettledFolder["permissions"],
  turnSnapshots: TurnSnapshots,
  state: SessionState,
): ApproveFn {
  const { policy, approvalMode: mode } = permissions;
  const approve = policyApprover(options.approval, hooks, options.warn, { policy, mode, cwd: options.cwd });
  return async (request, signal) => {
    const decision = await approve(request, signal);
    if (decision.allow && mayChangeFiles(request.tool))
      await turnSnapshots.beforeChange(state.recorder.id, (commit) => state.recorder.recordSnapshot(commit));
    return decision;
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
    const { cwd, env, warn, approval } = options;
    return setupPermissions(options.permissions, { cwd, env, harnessHome: stateDir(env), warn, ask: askOf(approval) });
  } catch (error) {
    if (error instanceof PermissionSetupError)
      throw new SessionSetupError(error.message, error.exitCode, { cause: error });
    throw error;
  }
}

// What a built session does once it stands: its runs, recorded at the one redaction point, and
// the controls the chat's slash commands use (model, thinking, new, resume, undo), all over one
// state object (SessionState), so a control changes the session in one place.
import { existsSync } from "node:fs";
import type { Agent } from "../core/agent.ts";
import type { CompactionResult } from "../core/compaction.ts";
import type { TodoItem } from "../core/event-schema.ts";
import type { AgentEvent, RunResult } from "../core/events.ts";
import type { UserContent } from "../core/messages.ts";
import type { Provider, ProviderError } from "../core/provider.ts";
import { resolveContextWindow } from "../providers/context-window.ts";
import type { ProviderSettings } from "../providers/index.ts";
import { planThinking } from "../providers/thinking.ts";
import type { ThinkingLevel } from "../providers/thinking-levels.ts";
import type { LockedSession } from "../session/session-lock.ts";
import { readSession, type SessionData } from "../session/session-reader.ts";
import type { SessionRecorder } from "../session/session-recorder.ts";
import { formatTokens } from "../shared/helpers.ts";
import type { SessionTelemetry } from "../telemetry/session-telemetry.ts";
import { proposedPlanEvents } from "../tools/exit-plan-mode.ts";
import { todoEvents } from "../tools/todo.ts";
import { startRecorder } from "./stored-sessions.ts";
import {
  applyPlan,
  planRedo,
  planUndo,
  snapshotsFor,
  type TurnSnapshots,
  UndoError,
  type UndoPlan,
  type UndoResult,
} from "./undo-redo.ts";
import { type UserCommandResult, userCommandControls } from "./user-commands.ts";

/** What changes while a session lives: the recorder (its id and file), the provider settings in use, the plan. */
export interface SessionState {
  recorder: SessionRecorder;
  settings: ProviderSettings;
  /** The model's plan now (the last todo call's list). */
  todo: readonly TodoItem[];
  /** The fallback models not yet used (`--fallback-model`, config.json `fallbackModels`), in order. */
  fallbacks: ProviderSettings[];
  /** The Markdown plan last proposed in plan mode (tools/exit-plan-mode.ts), kept beside the session. */
  plan?: string;
  /** OpenTelemetry export, when configured (src/telemetry): it sees each event as the recorder does. */
  telemetry?: SessionTelemetry;
}

/** The session's runs and the slash commands' controls. */
export interface SessionControls {
  /** Runs one prompt; every event is redacted, then recorded, then yielded. */
  run(prompt: string | UserContent, signal?: AbortSignal): AsyncGenerator<AgentEvent, RunResult>;
  /** Runs a command the person typed or a command file holds, as the model's bash call would run (user-commands.ts). */
  runCommand(command: string, signal?: AbortSignal, askWhy?: string): AsyncGenerator<AgentEvent, UserCommandResult>;
  /** Adds the person's own context to the conversation (a `!cmd` and its output), recorded; no model call. */
  addContext(text: string): Promise<void>;
  /** Summarises the older conversation now (`/compact`), recording its events like a run's. */
  compact(focus: string): AsyncGenerator<AgentEvent, CompactionResult>;
  /**
   * Goes on with another model (`id`, or `provider:id` for another provider's, converted as `-c
   * --provider` converts); returns what changed with it (context window, thinking), for people.
   */
  switchModel(model: string): Promise<string[]>;
  /**
   * Goes on with the next fallback model after `error` (AgentOptions.fallBack), switched as
   * `/model` switches and recorded so, with one line saying so; undefined when none is left.
   */
  fallBack(error: ProviderError): Promise<Provider | undefined>;
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
}

/** What the controls work with besides the state. */
export interface ControlledParts {
  agent: Agent;
  state: SessionState;
  env: NodeJS.ProcessEnv;
  cwd: string;
  providerFor(settings: ProviderSettings): Promise<Provider>;
  /** `provider:model` naming another provider than the one in use, as its settings; else undefined. Throws ConfigError. */
  otherProvider?(entry: string, current: ProviderSettings): ProviderSettings | undefined;
  /** The window compaction works within (changed on a model switch), and the one --context-window or the environment fixed. */
  window: { context: { window: number } };
  windowOverride: number | undefined;
  turnSnapshots: TurnSnapshots;
  warn(message: string): void;
  /** The one point where the event stream is transformed (redacted) before anyone sees it. */
  outgoing<R>(events: AsyncGenerator<AgentEvent, R>): AsyncGenerator<AgentEvent, R>;
}

export function sessionControls(parts: ControlledParts): SessionControls {
  const { agent, turnSnapshots, state } = parts;
  const recorded = recordedRuns(parts);
  return {
    async *run(prompt, signal) {
      turnSnapshots.newTurn(state.recorder.id);
      try {
        return yield* recorded((stop) => agent.prompt(prompt, stop), signal);
      } finally {
        await turnSnapshots.afterTurn(state.recorder.id, (commit) => state.recorder.recordSnapshot(commit));
      }
    },
    compact: (focus) => recorded((stop) => agent.compact(focus, stop)),
    ...userCommandControls(parts),
    ...providerControls(parts),
    ...conversationControls(parts),
    ...undoControls(parts),
  };
}

/**
 * Runs as the session records them. A session file that cannot be written (a full disk) stops
 * the run: the agent is aborted and its `done` comes out as an error saying so
 * (session/session-store.ts), so a headless run exits 1 with that line and the file stays resumable.
 */
function recordedRuns({ state, outgoing }: ControlledParts) {
  return async function* recorded<R>(
    start: (signal: AbortSignal) => AsyncGenerator<AgentEvent, R>,
    signal?: AbortSignal,
  ): AsyncGenerator<AgentEvent, R> {
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    if (signal?.aborted) stop.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    const asFailed = <T>(value: T): T =>
      state.recorder.failure && (value as { type?: unknown })?.type === "done"
        ? { ...value, reason: "error", error: state.recorder.failure }
        : value;
    const stream = outgoing(start(stop.signal));
    const withTodo = todoEvents(); // the plan the todo tool sets, as its own event
    const withPlan = proposedPlanEvents(); // the plan mode's plan, on the done event
    try {
      for (let step = await stream.next(); ; step = await stream.next()) {
        if (step.done) return withPlan(asFailed(step.value) as AgentEvent) as R;
        for (const event of withTodo(withPlan(asFailed(step.value)))) {
          if (event.type === "todo") state.todo = event.items;
          if (event.type === "done" && event.plan !== undefined) state.plan = event.plan;
          state.recorder.record(event);
          state.telemetry?.observe(event);
          if (state.recorder.failure) stop.abort();
          yield event;
        }
      }
    } finally {
      signal?.removeEventListener("abort", onAbort);
      await stream.return(undefined as R); // a consumer that stops early stops the run too
    }
  };
}

/** `/model`, `/thinking` and falling back: another provider for the runs that follow. */
function providerControls(parts: ControlledParts) {
  const { agent, state, providerFor, window, windowOverride, warn } = parts;
  /** Goes on with `next`: its provider, its context window (unless fixed), recorded as a model change. */
  const switchTo = async (next: ProviderSettings) => {
    agent.configure({ provider: await providerFor(next) });
    const before = window.context.window;
    if (windowOverride === undefined) window.context.window = await resolveContextWindow(next);
    state.settings = next;
    state.recorder.recordModelChange(next.name, next.model, next.baseUrl, next.api);
    return before;
  };
  return {
    async switchModel(model: string) {
      // A window configured or probed for the old model is not the new one's (compaction would
      // use the wrong one): resolved again, unless --context-window or the environment fixed it.
      // So are prices configured for it (config.json `prices`): the new model is priced from the table.
      // Another provider's (`/model copilot:gpt-4.1`) is resolved whole, as a fallback entry is.
      const next = parts.otherProvider?.(model, state.settings) ?? {
        ...state.settings,
        model,
        prices: undefined,
        ...(windowOverride === undefined ? { contextWindow: undefined } : {}),
      };
      const before = await switchTo(next);
      const changes = [
        window.context.window === before
          ? `context window ${formatTokens(before)}`
          : `context window ${formatTokens(window.context.window)} (was ${formatTokens(before)})`,
      ];
      const thinking = planThinking(next).notice;
      if (thinking) changes.push(thinking);
      return changes;
    },
    async fallBack(error: ProviderError) {
      const from = state.settings;
      const next = state.fallbacks.shift();
      if (!next) return undefined;
      try {
        await switchTo(next);
      } catch (failure) {
        warn(`cannot fall back to ${next.name}:${next.model}: ${(failure as Error).message}`);
        return undefined;
      }
      warn(
        `${from.name}:${from.model} failed (${error.message}); going on with ${next.name}:${next.model} (fallback model; its prompt cache starts cold)`,
      );
      return agent.options.provider;
    },
    async setThinking(level: ThinkingLevel) {
      const next = { ...state.settings, thinking: level };
      agent.configure({ provider: await providerFor(next) });
      state.settings = next;
      return planThinking(next).notice;
    },
  };
}

/** `/clear` and `/resume`: the session goes on in another file, with another conversation. */
function conversationControls({ agent, state, providerFor, env, cwd }: ControlledParts) {
  const moveTo = (next: SessionRecorder) => {
    state.recorder.close();
    state.recorder = next;
    agent.configure({
      sessionId: next.id,
      toolContext: { ...agent.options.toolContext, spillDir: next.writer.spillDir, sessionFile: next.writer.path },
    });
  };
  return {
    startNew() {
      moveTo(startRecorder(env, cwd, state.settings, undefined));
      agent.replaceMessages([]);
      state.todo = [];
      state.plan = undefined;
    },
    async resume(stored: LockedSession, settings: ProviderSettings) {
      const current = state.settings;
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
      state.settings = settings;
      agent.replaceMessages(stored.messages);
      state.todo = stored.todo;
    },
  };
}

/** `/undo` and `/redo`, worked out from the session's own record (turns, snapshots, earlier undos). */
function undoControls({ agent, state, env, cwd }: ControlledParts) {
  const storedSelf = (): SessionData => {
    if (!existsSync(state.recorder.writer.path))
      throw new UndoError("nothing to undo: no turn has run in this session yet");
    return readSession(state.recorder.writer.path);
  };
  const snapshots = () => snapshotsFor(env, cwd, state.recorder.id);
  return {
    planUndo: async (turns: number) => planUndo(storedSelf(), turns, snapshots()),
    planRedo: async () => planRedo(storedSelf(), snapshots()),
    async applyUndo(plan: UndoPlan) {
      const result = await applyPlan(plan, snapshots(), (entry) => state.recorder.recordUndo(entry));
      // The reader is the one home of what undo leaves.
      agent.replaceMessages(readSession(state.recorder.writer.path).messages);
      return result;
    },
  };
}

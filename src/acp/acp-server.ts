// `harness acp`: the Agent Client Protocol over stdio, so editors (Zed, ...) can drive harness.
// Each ACP session is one Agent; a prompt runs the loop and streams its events as session
// updates; tool calls the permission policy leaves open become `session/request_permission` requests to the
// editor; `session/cancel` aborts the running turn, which then ends with stopReason "cancelled".
import {
  type AgentContext,
  agent as acpAgent,
  type McpServer,
  methods,
  PROTOCOL_VERSION,
  RequestError,
  type RequestPermissionResponse,
  type Stream,
} from "@agentclientprotocol/sdk";
import type { AgentEvent, RunResult } from "../core/events.ts";
import type { Message, UserContent } from "../core/messages.ts";
import type { ApprovalRequest } from "../core/run-tools.ts";
import type { Tool } from "../core/tool.ts";
import { showControlChars } from "../shared/control-chars.ts";
import { type EditorQuestion, permissionOptions, questionText } from "./permission-question.ts";
import { carryOutPlan } from "./plan-approval.ts";
import { announceModes, type HostedModes, modeState, setMode } from "./session-modes.ts";
import {
  acpKind,
  promptContent,
  replayUpdates,
  stopReasonFor,
  textContent,
  UpdateTranslator,
} from "./session-updates.ts";

/** Characters of an editor's unexpected option id quoted in the warning (it is the editor's text). */
const MAX_SHOWN_OPTION_ID = 80;

/** One conversation the server hosts, made by the host (provider, tools, storage are its business). */
export interface HostedSession {
  id: string;
  /** The tools its model is offered (their kinds name the editor's tool-call kinds). */
  tools: readonly Tool[];
  /** Its approval modes, which the editor lists and switches; absent: none. */
  modes?: HostedModes;
  /** The worktree it works in, when the editor asked for one: told back in session/new's `_meta`. */
  worktree?: { name: string; branch: string; path: string };
  /** Runs one prompt: its events, recorded and redacted, and how it ended. */
  run(prompt: string | UserContent, signal: AbortSignal): AsyncGenerator<AgentEvent, RunResult>;
  close(): Promise<void>;
}

/** The editor's answer as the host's policy takes it; `undefined`: cancelled. */
export type EditorAnswer = { type: "yes" } | { type: "no"; reason?: string } | { type: "always" };

/** Asks the editor about one call the host's policy leaves open. */
export type AskEditorFn = (
  request: ApprovalRequest,
  question: EditorQuestion,
  signal: AbortSignal,
) => Promise<EditorAnswer | undefined>;

/** What the server needs from the program around it. */
export interface AcpHost {
  name: string;
  version: string;
  /**
   * A new conversation in `cwd`, with the editor's MCP servers added to the configured ones; with
   * `worktree` (a name, or "" for one named like a session), in a new git worktree of `cwd`'s repository.
   */
  newSession(request: SessionParams & { askEditor: AskEditorFn }): Promise<HostedSession>;
  /** A line for the editor's agent log (stderr). */
  warn(message: string): void;
  /** A prompt's pictures made fit for the model (checked, downscaled), or why one cannot be sent. */
  prepareImages(prompt: string | UserContent): Promise<{ prompt: string | UserContent } | { error: string }>;
  /** A stored conversation, continued; absent when sessions cannot be loaded. */
  loadSession?(request: {
    sessionId: string;
    cwd: string;
    mcpServers: McpServer[];
    askEditor: AskEditorFn;
  }): Promise<HostedSession & { history: Message[] }>;
}

interface LiveSession {
  hosted: HostedSession;
  /** The running prompt's abort switch; undefined between prompts. */
  turn?: AbortController;
  /** The running prompt's translator (it knows which calls were announced for permission). */
  translator?: UpdateTranslator;
}

/** What the server holds between requests. */
interface ServerState {
  host: AcpHost;
  sessions: Map<string, LiveSession>;
  /** The editor's side of the connection, known from its first session request. */
  client?: AgentContext;
}

type SessionParams = { cwd: string; mcpServers: McpServer[]; worktree?: string };
/**
 * The `_meta` key of session/new that asks for a worktree, and of its answer that names it. ACP
 * leaves `_meta` to implementations for what the protocol lacks
 * (https://agentclientprotocol.com/protocol/extensibility); the key carries harness's name.
 */
const WORKTREE_META = "harness/worktree";

/** Serves ACP on `stream` until the editor closes it; then closes every session. */
export async function serveAcp(stream: Stream, host: AcpHost): Promise<void> {
  const state: ServerState = { host, sessions: new Map() };
  const app = acpAgent({ name: host.name })
    .onRequest(methods.agent.initialize, ({ params }) => ({
      protocolVersion: Math.min(params.protocolVersion, PROTOCOL_VERSION),
      agentCapabilities: {
        loadSession: host.loadSession !== undefined,
        promptCapabilities: { image: true, audio: false, embeddedContext: true },
        mcpCapabilities: { http: true, sse: true },
      },
      agentInfo: { name: host.name, version: host.version },
      authMethods: [],
    }))
    .onRequest(methods.agent.session.new, async ({ params, client }) => {
      state.client = client;
      const asked = params._meta?.[WORKTREE_META];
      if (asked !== undefined && typeof asked !== "string")
        throw RequestError.invalidParams(undefined, `_meta.${WORKTREE_META} is a worktree name (or "")`);
      const worktree = asked === undefined ? {} : { worktree: asked };
      const live = await openSession(state, (askEditor) =>
        host.newSession({ ...sessionParams(params), ...worktree, askEditor }),
      );
      const { id, modes, worktree: made } = live.hosted;
      return { sessionId: id, ...modeState(modes), ...(made ? { _meta: { [WORKTREE_META]: made } } : {}) };
    })
    .onRequest(methods.agent.session.load, async ({ params, client }) => {
      state.client = client;
      const load = host.loadSession;
      if (!load) throw RequestError.invalidRequest(undefined, "this harness cannot load sessions");
      const live = await openSession(state, (askEditor) =>
        load({ ...sessionParams(params), sessionId: params.sessionId, askEditor }),
      );
      const loaded = live.hosted as HostedSession & { history: Message[] };
      // The protocol wants the whole conversation streamed back before the load answers.
      const kindOf = kindLookup(loaded.tools);
      for (const update of replayUpdates(loaded.history, kindOf))
        await client.notify(methods.client.session.update, { sessionId: loaded.id, update });
      return modeState(loaded.modes);
    })
    .onRequest(methods.agent.session.setMode, ({ params }) =>
      setMode(state.sessions.get(params.sessionId)?.hosted, params.sessionId, params.modeId),
    )
    .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
      state.client = client;
      return runPrompt(state, params.sessionId, params.prompt, client);
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      state.sessions.get(params.sessionId)?.turn?.abort();
    });

  const connection = app.connect(stream);
  await connection.closed;
  for (const live of state.sessions.values()) live.turn?.abort();
  await Promise.allSettled([...state.sessions.values()].map((live) => live.hosted.close()));
}

function sessionParams(params: SessionParams): SessionParams {
  return { cwd: params.cwd, mcpServers: params.mcpServers };
}

/** A session the host makes (new or loaded), with its questions going to the editor; kept by id. */
async function openSession(
  state: ServerState,
  make: (askEditor: AskEditorFn) => Promise<HostedSession>,
): Promise<LiveSession> {
  const live = {} as LiveSession;
  live.hosted = await make(askerFor(state, live)).catch(asRequestError);
  state.sessions.set(live.hosted.id, live);
  announceModes(live.hosted, (update) =>
    state.client?.notify(methods.client.session.update, { sessionId: live.hosted.id, update }),
  );
  return live;
}

/** One prompt of a session: its events streamed as updates until the run ends; one at a time. */
async function runPrompt(
  state: ServerState,
  sessionId: string,
  prompt: Parameters<typeof promptContent>[0],
  client: AgentContext,
): Promise<{ stopReason: ReturnType<typeof stopReasonFor> }> {
  const live = state.sessions.get(sessionId);
  if (!live) throw RequestError.sessionNotFound(sessionId);
  // A picture that cannot be sent fails the request with the reason, before the turn starts.
  const prepared = await state.host.prepareImages(promptContent(prompt));
  if ("error" in prepared) throw RequestError.invalidParams(undefined, prepared.error);
  if (live.turn)
    throw RequestError.invalidRequest(
      undefined,
      "a prompt is already running in this session; cancel it or wait for its answer",
    );
  const turn = new AbortController();
  live.turn = turn;
  live.translator = new UpdateTranslator(kindLookup(live.hosted.tools), planLookup(live.hosted.tools));
  try {
    let next = prepared.prompt;
    for (;;) {
      const run = live.hosted.run(next, turn.signal);
      let step = await run.next();
      for (; !step.done; step = await run.next())
        for (const update of live.translator.toUpdates(step.value))
          await client.notify(methods.client.session.update, { sessionId, update });
      const done = step.value;
      if (done.reason === "error") throw RequestError.internalError(undefined, done.error ?? "the run failed");
      // A plan proposed in plan mode: the editor chooses to carry it out, in this same turn, or not.
      const proposed = live.translator.lastPlan;
      const carryOut =
        done.reason === "stop" && done.plan !== undefined && proposed && live.hosted.modes
          ? await carryOutPlan(client, sessionId, proposed, live.hosted.modes, turn.signal)
          : undefined;
      if (carryOut === undefined) return { stopReason: stopReasonFor(done.reason) };
      live.translator.lastPlan = undefined;
      next = carryOut;
    }
  } finally {
    live.turn = undefined;
  }
}

/**
 * The host's policy decided that this call needs a question; the editor gets it with the reason.
 * "Always" is offered only when the policy names the rules it would add (never for a protected
 * path or a deny rule it cannot check), and the policy, not this server, keeps them.
 */
function askerFor(state: ServerState, live: LiveSession): AskEditorFn {
  return async (request, question, signal) => {
    const client = state.client;
    if (!client) return { type: "no", reason: "no editor is connected" };
    const sessionId = live.hosted.id;
    const toolCall = {
      toolCallId: request.call.id,
      title: request.summary,
      kind: acpKind(request.tool.kind),
      status: "pending" as const,
      rawInput: request.input,
    };
    live.translator?.known.add(request.call.id);
    await client.notify(methods.client.session.update, {
      sessionId,
      update: { sessionUpdate: "tool_call", ...toolCall },
    });
    const options = permissionOptions(question);
    let response: RequestPermissionResponse;
    try {
      response = await client.request(
        methods.client.session.requestPermission,
        {
          sessionId,
          toolCall: { ...toolCall, content: textContent(questionText(question)) },
          options,
          _meta: {
            harness: { why: question.why ?? null, explicit: question.explicit === true, remember: question.remember },
          },
        },
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      );
    } catch (error) {
      if (signal.aborted) return undefined;
      return { type: "no", reason: `the editor could not ask: ${(error as Error).message}` };
    }
    if (response.outcome.outcome === "cancelled") return undefined;
    const chosen = response.outcome.optionId;
    // Only an option this question offered counts: an "always" where none was offered (a protected
    // path, a deny rule that cannot be checked) or an id of the editor's own is a refusal, said once.
    if (!options.some((option) => option.optionId === chosen)) {
      const shown = showControlChars(String(chosen), "").slice(0, MAX_SHOWN_OPTION_ID);
      state.host.warn(
        `the editor answered "${shown}" about ${showControlChars(request.call.id, "")}, which was not offered (${options.map((option) => option.optionId).join(", ")}): taken as a refusal`,
      );
      return { type: "no", reason: `the editor answered with an option that was not offered ("${shown}")` };
    }
    switch (chosen) {
      case "allow_once":
        return { type: "yes" };
      case "allow_always":
        return { type: "always" };
      default:
        return { type: "no" };
    }
  };
}

/** The host's errors (no key, unknown session id) carry their message to the editor. */
function asRequestError(error: unknown): never {
  if (error instanceof RequestError) throw error;
  throw RequestError.internalError(undefined, error instanceof Error ? error.message : String(error));
}

function kindLookup(tools: readonly Tool[]) {
  return (name: string) => tools.find((tool) => tool.name === name)?.kind;
}

/** The plan a call proposes (Tool.proposedPlan), when its input is valid. */
function planLookup(tools: readonly Tool[]) {
  return (name: string, input: unknown) => {
    const tool = tools.find((candidate) => candidate.name === name);
    const parsed = tool?.proposedPlan ? tool.input.safeParse(input) : undefined;
    return parsed?.success ? tool?.proposedPlan?.(parsed.data) : undefined;
  };
}

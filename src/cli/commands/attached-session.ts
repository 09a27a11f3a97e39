// A session `harness serve` holds, as the chat loop (ui/chat.ts) sees a session: `run` sends a
// prompt and yields its events from the server's stream, `elsewhere` yields the runs and changes
// other clients made, and the permission questions are put to this terminal with the chat's own
// question (ui/approval.ts) and answered over the API. One event stream feeds it all; an answer
// someone else gave first takes the question off this screen.
import type { AgentEvent } from "../../core/events.ts";
import type { UserContent } from "../../core/messages.ts";
import type { ApprovalQuestion, AskApprovalFn } from "../../permissions/approver.ts";
import {
  type ServeClient,
  ServeClientError,
  type ServerEvent,
  type SessionSummary,
} from "../../server/serve-client.ts";
import type { QuestionEvent } from "../../server/server-events.ts";
import type { Elsewhere } from "../../ui/chat.ts";

type Item = { id: number | undefined; event: ServerEvent | { type: "reset" } };
type OwnChange = Extract<ServerEvent, { type: "model_changed" | "undone" }>;

const SERVER_OWN = new Set(["question", "question_answered", "model_changed", "undone", "server_error", "reset"]);

export class AttachedSession {
  private model: string;
  private readonly inbox: Item[] = [];
  private wake: (() => void) | undefined;
  /** Questions settled (by anyone), and the ones this terminal answered. */
  private readonly answered = new Set<string>();
  private readonly answeredHere = new Set<string>();
  /** The question on screen now, by id: an answer from elsewhere takes it off. */
  private readonly asking = new Map<string, AbortController>();
  /** A model switch or undo this terminal asked for: its event is its answer, not news. */
  private ownChange: { type: OwnChange["type"]; resolve(event: OwnChange): void } | undefined;

  constructor(
    private readonly client: ServeClient,
    private readonly summary: SessionSummary,
    private readonly askPerson: AskApprovalFn,
    /** A line about the session beside a run (the renderer's note while one is drawn). */
    private readonly note: (text: string) => void,
  ) {
    this.model = `${summary.provider} · ${summary.model}`;
  }

  get id(): string {
    return this.summary.id;
  }

  title = (): string => this.model;

  /** Reads the session's stream (from its first kept event) until `signal` aborts. */
  async follow(signal: AbortSignal): Promise<void> {
    try {
      for await (const item of this.client.events(this.id, { signal })) this.arrived(item);
    } catch (error) {
      if (!signal.aborted) this.arrived({ id: undefined, event: { type: "server_error", error: streamEnded(error) } });
    }
  }

  private arrived(item: Item): void {
    const { event } = item;
    if (event.type === "question_answered") {
      this.answered.add(event.questionId);
      this.asking.get(event.questionId)?.abort();
    }
    if (event.type === "model_changed") this.model = `${event.provider} · ${event.model}`;
    if ((event.type === "model_changed" || event.type === "undone") && this.ownChange?.type === event.type) {
      this.ownChange.resolve(event);
      this.ownChange = undefined;
      return;
    }
    this.inbox.push(item);
    this.wake?.();
  }

  private async next(signal?: AbortSignal): Promise<Item | undefined> {
    while (this.inbox.length === 0) {
      if (signal?.aborted) return undefined;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        signal?.addEventListener("abort", () => resolve(), { once: true });
      });
      this.wake = undefined;
    }
    return this.inbox.shift();
  }

  /** runChat's `elsewhere`: a run another client started (or one under way when attaching), or news. */
  elsewhere = async (signal: AbortSignal): Promise<Elsewhere | undefined> => {
    for (;;) {
      const item = await this.next(signal);
      if (!item) return undefined;
      const { event } = item;
      if (!SERVER_OWN.has(event.type) || event.type === "question")
        return { type: "run", run: (turn) => this.events(item, turn, true) };
      const text = newsOf(event as ServerEvent | { type: "reset" });
      if (text) return { type: "note", text };
    }
  };

  /** runChat's `run`: the prompt goes to the server; its events come back on the stream. */
  run = (prompt: string | UserContent, signal: AbortSignal): AsyncIterable<AgentEvent> =>
    this.prompted(typeof prompt === "string" ? prompt : textOf(prompt), signal);

  private async *prompted(text: string, signal: AbortSignal): AsyncGenerator<AgentEvent> {
    try {
      await this.client.prompt(this.id, text);
    } catch (error) {
      if (!(error instanceof ServeClientError)) throw error;
      this.note(`not sent: ${error.message}`);
      return;
    }
    // Ours is the next run: the server takes one prompt at a time and took this one.
    for (;;) {
      const item = await this.next();
      if (!item) return;
      if (item.event.type === "start") return yield* this.events(item, signal, false);
      const text = newsOf(item.event);
      if (text) this.note(text);
    }
  }

  /** One run's events from `first` to its `done`; Ctrl-C (`signal`) interrupts it in the server. */
  private async *events(first: Item, signal: AbortSignal, isElsewhere: boolean): AsyncGenerator<AgentEvent> {
    const interrupt = () => void this.client.interrupt(this.id).catch(() => undefined);
    signal.addEventListener("abort", interrupt, { once: true });
    try {
      for (let item: Item | undefined = first; item; item = await this.next()) {
        const event = item.event;
        if (event.type === "question") await this.put(item.id, event, signal);
        else if (event.type === "question_answered") {
          if (!this.answeredHere.has(event.questionId)) this.note(`answered elsewhere: ${event.answer}`);
        } else if (SERVER_OWN.has(event.type)) {
          const text = newsOf(event);
          if (text) this.note(text);
          if (event.type === "server_error") return;
        } else {
          const agentEvent = event as AgentEvent;
          // A prompt sent from elsewhere (the page, another terminal) is shown as the person's line.
          if (isElsewhere && agentEvent.type === "message" && agentEvent.message.role === "user")
            this.note(`> ${textOf(agentEvent.message.content)}`);
          yield agentEvent;
          if (agentEvent.type === "done") return;
        }
      }
    } finally {
      signal.removeEventListener("abort", interrupt);
    }
  }

  /** Puts a question still open to the person here; their answer goes to the server (first answer wins). */
  private async put(id: number | undefined, event: QuestionEvent, turn: AbortSignal): Promise<void> {
    const keptBefore = id !== undefined && id <= this.summary.lastEventId;
    if (this.answered.has(event.questionId) || (keptBefore && !this.summary.questions.includes(event.questionId)))
      return;
    const asking = new AbortController();
    this.asking.set(event.questionId, asking);
    const stop = () => asking.abort();
    turn.addEventListener("abort", stop, { once: true });
    try {
      const question: ApprovalQuestion = {
        summary: event.summary,
        remember: event.explicit ? [] : event.remember,
        ...(event.why ? { why: event.why } : {}),
        ...(event.diff ? { diff: event.diff } : {}),
        ...(event.explicit ? { explicit: true as const } : {}),
      };
      const answer = await this.askPerson(question, asking.signal);
      if (!answer || this.answered.has(event.questionId)) return;
      this.answeredHere.add(event.questionId);
      await this.client
        // "project" (the network question's, saved for this folder) is not offered over the API:
        // taken as the "always" the question offers, as the approver does for a tool's question.
        .answer(
          this.id,
          event.questionId,
          answer.type === "project" ? "always" : answer.type,
          answer.type === "no" ? answer.reason : undefined,
        )
        .catch((error: Error) => {
          this.answeredHere.delete(event.questionId);
          this.note(
            error instanceof ServeClientError && error.status === 409 ? "answered elsewhere first" : error.message,
          );
        });
    } finally {
      turn.removeEventListener("abort", stop);
      this.asking.delete(event.questionId);
    }
  }

  /** Asks the server for a model switch or an undo; resolves with the event that says it happened. */
  async change<T extends OwnChange["type"]>(
    type: T,
    request: () => Promise<unknown>,
  ): Promise<Extract<OwnChange, { type: T }>> {
    const seen = new Promise<OwnChange>((resolve) => (this.ownChange = { type, resolve }));
    try {
      await request();
    } catch (error) {
      this.ownChange = undefined;
      throw error;
    }
    return (await seen) as Extract<OwnChange, { type: T }>;
  }
}

/** What a person reads about a change outside a run; undefined: nothing to say. */
function newsOf(event: ServerEvent | { type: "reset" }): string | undefined {
  switch (event.type) {
    case "model_changed":
      return `model: ${event.provider} · ${event.model} (switched elsewhere)`;
    case "undone":
      return `undone elsewhere: ${event.turns} turn(s); ${event.files.join(", ") || "no files changed"}`;
    case "server_error":
      return `error: ${event.error}`;
    case "reset":
      return "(older events are no longer kept by the server)";
    default:
      return undefined;
  }
}

function textOf(content: string | ReadonlyArray<{ type: string; text?: string }>): string {
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join(" ");
}

function streamEnded(error: unknown): string {
  return `the event stream ended (${error instanceof Error ? error.message : String(error)}); attach again when the server is back`;
}

// Server-side conversation state, whatever the API (Anthropic's message threads in
// anthropic/anthropic-threads.ts, OpenAI's stored responses in openai-responses/stored-responses.ts):
// the API keeps the conversation, and a request sends only what is new (docs/providers.md,
// "Server-side conversation state").
// *Decision*: the state is an optimisation over the session, never its memory. A request continues
// from a reply only when the whole conversation it would send is exactly what the server holds
// (every item, that reply included, with the same fixed fields: system or instructions, tools,
// model, thinking) followed by new items; anything else (compaction, undo, /clear, another model
// or provider, a changed tool list or system prompt, a resumed session: a new process holds
// nothing) simply does not match, and the request goes whole. So no change of what the server
// holds has to be announced here for it to be right.
import { createHash } from "node:crypto";
import type { AssistantMessage, ThreadUse } from "../core/messages.ts";
import type { ModelEvent, ModelRequest, Provider } from "../core/provider.ts";
import type { ErrorContext } from "./http-errors.ts";
import { type HttpReply, HttpStatusError } from "./post-json.ts";
import { type CallSettings, type WireFormat, wireProvider } from "./wire-reply.ts";

/** Replies kept per provider (an agent and its subagents each have their own); the oldest go first. */
const MAX_HELD = 8;

/** A reply the next request may continue from. */
interface Held {
  /** The reply's id, which a continue names. */
  replyId: string;
  /** How many wire items the server holds, the reply's included, and their digest. */
  count: number;
  digest: string;
  /** Digest of the fields that must not change (system, tools, model, thinking). */
  fixed: string;
  lastUsedAt: number;
}

/** How one API keeps state: what its requests carry and how it refuses. */
export interface StateWire<Item> {
  /** How long the API keeps a reply after its last use; one idle longer is not tried. */
  idleMs: number;
  /**
   * Continues refused in a row (none served between) after which the server is taken to keep
   * nothing (an account that stores nothing without saying so), and requests go whole.
   */
  stopAfterRefusals?: number;
  /** The conversation `body` carries, as compared (without per-request marks). */
  items(body: Record<string, unknown>): Item[];
  /** The fields a continue must share with what the server holds. */
  fixed(body: Record<string, unknown>): unknown;
  /** Whether `next` may follow what the server holds (Anthropic: a user message). */
  canFollow(next: Item): boolean;
  /** The body that sends only `body`'s items from `from` on, continuing reply `replyId`. */
  continued(body: Record<string, unknown>, from: number, replyId: string): Record<string, unknown>;
  /** The body that sends everything and asks the server to keep it. */
  created(body: Record<string, unknown>): Record<string, unknown>;
  /** Why the API refused a continue (its error's code), or undefined when the error is no refusal. */
  refusal(error: HttpStatusError): string | undefined;
  /** The reply as the items a later request carries. */
  replyItems(reply: AssistantMessage): Item[];
  /**
   * Why a create was refused because the server keeps nothing (a backend that takes only
   * `store: false`), or undefined: the body goes again as built, and continuing stops for good.
   */
  storeRefused?(error: HttpStatusError): string | undefined;
}

/** The replies of one provider a request may continue from; `call()` starts one model call's use of them. */
export class StateKeeper<Item> {
  private readonly held: Held[] = [];
  /** Why continuing stopped for this provider (the server keeps nothing); undefined while it works. */
  stopped: string | undefined;
  /** Continues refused since the last one served. */
  refusedInRow = 0;

  constructor(
    readonly wire: StateWire<Item>,
    private readonly now: () => number = Date.now,
  ) {}

  call(): StateCall<Item> {
    return new StateCall(this);
  }

  /**
   * The reply `items` continue from, taken out of the keeper: no other call can continue the same
   * reply (a subagent, a fork in this process, a retry of this call after a cut reply).
   */
  claim(items: Item[], fixed: string): Held | undefined {
    const now = this.now();
    for (let index = this.held.length - 1; index >= 0; index--) {
      if (now - this.held[index].lastUsedAt > this.wire.idleMs) this.held.splice(index, 1);
    }
    const index = this.held.findIndex(
      (held) =>
        held.fixed === fixed &&
        items.length > held.count &&
        this.wire.canFollow(items[held.count]) &&
        digestOf(items.slice(0, held.count)) === held.digest,
    );
    return index === -1 ? undefined : this.held.splice(index, 1)[0];
  }

  /** A claimed reply whose continue got an error status, continuable again. */
  putBack(held: Held): void {
    this.held.push(held);
    if (this.held.length > MAX_HELD) this.held.shift();
  }

  keep(held: Omit<Held, "lastUsedAt">): void {
    if (this.stopped) return;
    this.putBack({ ...held, lastUsedAt: this.now() });
  }
}

/** One model call: plans its request (continue or create), falls back once, and keeps the reply it ends with. */
class StateCall<Item> {
  /** What the request that was answered did; undefined until one is sent. */
  use: ThreadUse | undefined;
  private sent: { items: Item[]; fixed: string } | undefined;
  private replyId: string | undefined;

  constructor(private readonly keeper: StateKeeper<Item>) {}

  /**
   * Sends `body` (the whole request) as a continue when the server holds all but its newest
   * items, else as a create. A continue the API refuses (expired, unknown, raced, fingerprint)
   * goes again once as a create.
   */
  async post(body: Record<string, unknown>, send: (body: unknown) => Promise<HttpReply>): Promise<HttpReply> {
    const wire = this.keeper.wire;
    if (this.keeper.stopped) return this.whole(body, send, this.keeper.stopped);
    const items = wire.items(body);
    const fixed = digestOf(wire.fixed(body));
    this.sent = { items, fixed };
    const held = this.keeper.claim(items, fixed);
    if (held) {
      const continued = wire.continued(body, held.count, held.replyId);
      try {
        this.use = { mode: "continue", bytes: sizeOf(continued), messages: items.length - held.count };
        const reply = await send(continued);
        this.keeper.refusedInRow = 0;
        return reply;
      } catch (error) {
        const unstored = error instanceof HttpStatusError ? wire.storeRefused?.(error) : undefined;
        if (unstored) return this.stop(body, send, unstored);
        const refused = error instanceof HttpStatusError ? wire.refusal(error) : undefined;
        if (refused && ++this.keeper.refusedInRow === wire.stopAfterRefusals)
          return this.stop(body, send, `${refused} ${wire.stopAfterRefusals} times in a row: the server keeps nothing`);
        if (refused) return this.create(body, send, refused);
        // Refused before any reply (429, 529, 5xx): the API did not continue, so the loop's
        // retry may. Should it have, that retry is refused and falls back like any other.
        if (error instanceof HttpStatusError) this.keeper.putBack(held);
        throw error;
      }
    }
    return this.create(body, send);
  }

  /** The id of the reply, which the next request continues from. */
  noteReplyId(id: string | undefined): void {
    if (id) this.replyId = id;
  }

  /** After a whole reply: keep it, for the next request to continue from. */
  settle(reply: AssistantMessage): void {
    if (!this.sent || !this.replyId || this.keeper.stopped) return;
    const replyItems = this.keeper.wire.replyItems(reply);
    if (replyItems.length === 0) return; // an empty reply: nothing for the next request to follow
    const items = [...this.sent.items, ...replyItems];
    this.keeper.keep({ replyId: this.replyId, count: items.length, digest: digestOf(items), fixed: this.sent.fixed });
  }

  private async create(
    body: Record<string, unknown>,
    send: (body: unknown) => Promise<HttpReply>,
    refused?: string,
  ): Promise<HttpReply> {
    const created = this.keeper.wire.created(body);
    const count = this.keeper.wire.items(body).length;
    this.use = { mode: "create", bytes: sizeOf(created), messages: count, ...(refused ? { refused } : {}) };
    try {
      return await send(created);
    } catch (error) {
      const why = error instanceof HttpStatusError ? this.keeper.wire.storeRefused?.(error) : undefined;
      if (!why) throw error;
      return this.stop(body, send, why);
    }
  }

  /** The server keeps nothing here: the reply's record says why, and requests go whole from now on. */
  private stop(body: Record<string, unknown>, send: (body: unknown) => Promise<HttpReply>, why: string) {
    this.keeper.stopped = why;
    this.sent = undefined;
    return this.whole(body, send, why);
  }

  /** A request that keeps nothing on the server, once continuing has stopped. */
  private whole(body: Record<string, unknown>, send: (body: unknown) => Promise<HttpReply>, why: string) {
    const count = this.keeper.wire.items(body).length;
    this.use = { mode: "whole", bytes: sizeOf(body), messages: count, refused: why };
    return send(body);
  }
}

/** Where a wire format's reply says its id: in one streamed event, or in a whole JSON body. */
export interface ReplyIds<Event> {
  ofEvent(event: Event): string | undefined;
  ofWhole(body: unknown): string | undefined;
}

/**
 * The provider of a wire API that keeps state: each call's request (`toBody`) goes through a
 * StateCall, and the reply is recorded with what its request did (`thread`).
 */
export function stateProvider<Item, Event>(
  settings: CallSettings,
  context: ErrorContext,
  format: WireFormat<Event> & ReplyIds<Event>,
  keeper: StateKeeper<Item>,
  toBody: (request: ModelRequest) => Record<string, unknown>,
  send: (body: unknown, signal: AbortSignal) => Promise<HttpReply>,
): Provider {
  return {
    name: settings.name,
    model: settings.model,
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      const call = keeper.call();
      const provider = wireProvider(settings, context, noting(format, call), (request, signal) =>
        call.post(toBody(request), (body) => send(body, signal)),
      );
      for await (const event of provider.stream(request, signal)) {
        if (event.type !== "done") {
          yield event;
          continue;
        }
        call.settle(event.message);
        yield { type: "done", message: call.use ? { ...event.message, thread: call.use } : event.message };
      }
    },
  };
}

/** `format`, telling `call` the reply's id, which the next request continues from. */
function noting<Item, Event>(format: WireFormat<Event> & ReplyIds<Event>, call: StateCall<Item>): WireFormat<Event> {
  return {
    ...format,
    eventsOfWhole(body, context) {
      call.noteReplyId(format.ofWhole(body));
      return format.eventsOfWhole(body, context);
    },
    newAccumulator() {
      const accumulator = format.newAccumulator();
      return {
        add(event) {
          call.noteReplyId(format.ofEvent(event));
          return accumulator.add(event);
        },
        get isComplete() {
          return accumulator.isComplete;
        },
        finish: () => accumulator.finish(),
      };
    },
  };
}

function digestOf(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("base64");
}

function sizeOf(body: unknown): number {
  return Buffer.byteLength(JSON.stringify(body));
}

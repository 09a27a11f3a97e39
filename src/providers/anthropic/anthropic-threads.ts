// Anthropic's message threads (beta `message-threads-2026-08-12`): the API keeps the conversation,
// and each request sends only what is new (docs/providers.md, "Server-side conversation state").
// *Decision*: a thread is an optimisation over the session, never its memory. A request continues
// a thread only when the whole conversation it would send is exactly what that thread holds (every
// message, the thread's last reply included, with the same system, tools, model and thinking)
// followed by new messages; anything else (compaction, undo, /clear, another model or provider,
// a changed tool list or system prompt, a resumed session: a new process holds no threads) simply
// does not match, and the request creates a new thread with the whole conversation. So no change
// of what the thread holds has to be announced to this file for it to be right.
import { createHash } from "node:crypto";
import type { AssistantMessage, ThreadUse } from "../../core/messages.ts";
import { type HttpReply, HttpStatusError } from "../post-json.ts";
import { toWireMessages, type WireMessage } from "./anthropic-request.ts";

const THREADS_BETA = "message-threads-2026-08-12";

/**
 * The API drops a thread five minutes after its last request. *Decision*: one idle for 4.5
 * minutes is not tried (a create goes at once rather than after a 404); the 30 s cover the
 * upload and the clocks' difference.
 */
const THREAD_IDLE_MS = 4.5 * 60_000;
/** Threads kept per provider (an agent and its subagents each have their own); the oldest go first. */
const MAX_OPEN_THREADS = 8;

/** A thread the next request may continue. */
interface OpenThread {
  /** The reply the next request continues from. */
  lastMessageId: string;
  /** How many wire messages the thread holds, its last reply included, and their digest. */
  count: number;
  digest: string;
  /** Digest of the fields a continue leaves out (system, tools) and of those the API fingerprints. */
  fixed: string;
  lastUsedAt: number;
}

/** The threads of one provider; `call()` starts one model call's use of them. */
export class ThreadKeeper {
  private readonly open: OpenThread[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  call(): ThreadCall {
    return new ThreadCall(this);
  }

  /**
   * The thread `body` continues, taken out of the keeper: no other call can continue the same
   * reply (a subagent, a fork in this process, a retry of this call after a cut reply).
   */
  claim(wire: WireMessage[], fixed: string): OpenThread | undefined {
    const now = this.now();
    for (let index = this.open.length - 1; index >= 0; index--) {
      if (now - this.open[index].lastUsedAt > THREAD_IDLE_MS) this.open.splice(index, 1);
    }
    const index = this.open.findIndex(
      (thread) =>
        thread.fixed === fixed &&
        wire.length > thread.count &&
        wire[thread.count].role === "user" &&
        digestOf(wire.slice(0, thread.count)) === thread.digest,
    );
    return index === -1 ? undefined : this.open.splice(index, 1)[0];
  }

  /** A claimed thread whose continue got an error status, continuable again. */
  putBack(thread: OpenThread): void {
    this.open.push(thread);
    if (this.open.length > MAX_OPEN_THREADS) this.open.shift();
  }

  keep(thread: Omit<OpenThread, "lastUsedAt">): void {
    this.open.push({ ...thread, lastUsedAt: this.now() });
    if (this.open.length > MAX_OPEN_THREADS) this.open.shift();
  }
}

/** One model call: plans its request (continue or create), falls back once, and keeps the thread its reply ends. */
export class ThreadCall {
  /** What the request that was answered did; undefined until one is sent. */
  use: ThreadUse | undefined;
  private sent: { wire: WireMessage[]; fixed: string } | undefined;
  private messageId: string | undefined;

  constructor(private readonly keeper: ThreadKeeper) {}

  /**
   * Sends `body` (the whole request, as toAnthropicRequest builds it) as a continue when a
   * thread holds all but its newest messages, else as a create. A continue the API refuses
   * (expired, continued already, in flight, fingerprint) goes again once as a create.
   */
  async post(body: Record<string, unknown>, send: (body: unknown) => Promise<HttpReply>): Promise<HttpReply> {
    const messages = body.messages as WireMessage[];
    const wire = unmarked(messages);
    const fixed = digestOf([body.system, body.tools, body.model, body.thinking ?? null]);
    this.sent = { wire, fixed };
    const thread = this.keeper.claim(wire, fixed);
    if (thread) {
      const { system: _system, tools: _tools, ...rest } = body;
      const continued = {
        ...rest,
        messages: messages.slice(thread.count),
        thread: { type: "continue", previous_message_id: thread.lastMessageId },
      };
      try {
        this.use = { mode: "continue", bytes: sizeOf(continued), messages: messages.length - thread.count };
        return await send(continued);
      } catch (error) {
        const refused = threadRefusal(error);
        if (refused) return this.create(body, send, refused);
        // Refused before any reply (429, 529, 5xx): the API did not continue the thread, so the
        // loop's retry may. Should it have, that retry is refused and falls back like any other.
        if (error instanceof HttpStatusError) this.keeper.putBack(thread);
        throw error;
      }
    }
    return this.create(body, send);
  }

  /** The id of the reply (message_start), which the next request continues from. */
  noteMessageId(id: string | undefined): void {
    if (id) this.messageId = id;
  }

  /** After a whole reply: keep the thread it ends, for the next request. */
  settle(reply: AssistantMessage): void {
    if (!this.sent || !this.messageId) return;
    const replyWire = toWireMessages([reply]);
    if (replyWire.length !== 1) return; // an empty reply: no message for the next request to follow
    const wire = [...this.sent.wire, ...unmarked(replyWire)];
    this.keeper.keep({
      lastMessageId: this.messageId,
      count: wire.length,
      digest: digestOf(wire),
      fixed: this.sent.fixed,
    });
  }

  private create(
    body: Record<string, unknown>,
    send: (body: unknown) => Promise<HttpReply>,
    refused?: string,
  ): Promise<HttpReply> {
    const created = { ...body, thread: { type: "create" } };
    const messages = (body.messages as unknown[]).length;
    this.use = { mode: "create", bytes: sizeOf(created), messages, ...(refused ? { refused } : {}) };
    return send(created);
  }
}

/**
 * Why the API refused a continue, when it did: a `thread_*` error (404 not found, 409 continued
 * or in flight, 400 fingerprint), or any 404, which is what a continue the API cannot serve answers.
 */
function threadRefusal(error: unknown): string | undefined {
  if (!(error instanceof HttpStatusError)) return undefined;
  const type = (error.error as { error?: { type?: unknown } } | undefined)?.error?.type;
  if (typeof type === "string" && type.startsWith("thread_")) return type;
  return error.status === 404 ? (typeof type === "string" ? type : "not_found") : undefined;
}

/** The anthropic-beta header with the threads beta added to any the settings give. */
export function withThreadsBeta(headers: Record<string, string>): Record<string, string> {
  const name = Object.keys(headers).find((key) => key.toLowerCase() === "anthropic-beta");
  if (!name) return { ...headers, "anthropic-beta": THREADS_BETA };
  const betas = headers[name].split(",").map((beta) => beta.trim());
  return betas.includes(THREADS_BETA) ? headers : { ...headers, [name]: [...betas, THREADS_BETA].join(",") };
}

/** Messages without their cache breakpoints, which differ request by request. */
function unmarked(messages: WireMessage[]): WireMessage[] {
  return messages.map((message) => ({
    ...message,
    content: message.content.map((block) => {
      if (!("cache_control" in block)) return block;
      const { cache_control: _mark, ...rest } = block;
      return rest;
    }),
  }));
}

function digestOf(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("base64");
}

function sizeOf(body: unknown): number {
  return Buffer.byteLength(JSON.stringify(body));
}

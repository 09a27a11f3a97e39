// Anthropic's message threads (beta `message-threads-2026-08-12`) as the fake keeps them. The
// shapes follow the issue that asked for them (harness issue 53, which cites "Message threads" in
// Claude's platform docs; that page is not in our docs corpus) and the SDK helpers' own
// description (https://rubydoc.info/github/anthropics/anthropic-sdk-ruby/main/Anthropic/Helpers/Threads/BetaMessageThread:
// "A continue leaves out system and tools", "A thread runs one turn at a time and is not safe
// for concurrent use"). The rules kept:
// - `"thread": {"type": "create"}` starts a thread holding system, tools and the messages; the
//   reply's id is what the next request continues from.
// - `"thread": {"type": "continue", "previous_message_id": id}` sends only the new messages and
//   leaves `system` and `tools` out; the thread adds them to what it holds.
// - A thread expires five minutes after its last request; a continue of an expired or unknown
//   thread is a 404 `thread_not_found`.
// - Each reply is continued once: a second continue is `thread_already_continued` (409), one
//   while the first is still answering is `thread_continue_in_flight` (409).
// - The fields a continue still carries and the thread fixed (model, thinking) are its
//   fingerprint: a change is `thread_fingerprint_mismatch` (400).
// *Decision*: the statuses of the last three are ours (the issue names only the 404); the
// error body is Anthropic's usual `{"type":"error","error":{"type","message"}}`.

export const THREADS_BETA = "message-threads-2026-08-12";
export const THREAD_TTL_MS = 5 * 60_000;

interface Thread {
  system: unknown;
  tools: unknown;
  fingerprint: string;
  /** Every message the thread holds, its last reply included. */
  messages: any[];
  /** The reply a continue may name; replies before it were continued already. */
  lastMessageId: string;
  lastRequestAt: number;
  /** The reply a continue is answering from right now. */
  inFlight?: string;
}

export interface ThreadRefusal {
  status: number;
  body: { type: "error"; error: { type: string; message: string } };
}

/** One accepted threaded request, until its reply is whole (`complete`) or not (`abandon`). */
export interface ThreadTurn {
  kind: "create" | "continue";
  /** The conversation the model reads: the thread's part and the request's. */
  conversation: any;
  /** The id the reply gets. */
  messageId: string;
  complete(replyContent: unknown[]): void;
  abandon(): void;
}

export class FakeThreads {
  /** The fake's clock (ms); a test sets it to let threads expire without waiting. */
  clock: () => number = Date.now;
  private readonly threads = new Set<Thread>();
  private replies = 0;
  /** Refusals given, by error type, for tests. */
  readonly refusals: string[] = [];

  /** A threaded request accepted as a turn, or refused; undefined when it names no thread. */
  open(body: any, headers: Record<string, string | string[] | undefined>): ThreadTurn | ThreadRefusal | undefined {
    if (!body || body.thread === undefined) return undefined;
    const betas = String(headers["anthropic-beta"] ?? "").split(/\s*,\s*/);
    if (!betas.includes(THREADS_BETA))
      return this.refuse(400, "invalid_request_error", "thread: Extra inputs are not permitted");
    const now = this.clock();
    for (const thread of this.threads) if (now - thread.lastRequestAt > THREAD_TTL_MS) this.threads.delete(thread);
    const fingerprint = JSON.stringify([body.model, body.thinking ?? null]);
    if (body.thread?.type === "create") {
      const thread: Thread = {
        system: body.system,
        tools: body.tools,
        fingerprint,
        messages: [],
        lastMessageId: "",
        lastRequestAt: now,
      };
      return this.turn(thread, "create", withoutThread(body), body.messages);
    }
    if (body.thread?.type !== "continue" || typeof body.thread.previous_message_id !== "string")
      return this.refuse(400, "invalid_request_error", "thread.type: expected create or continue");
    if (body.system !== undefined || body.tools !== undefined)
      return this.refuse(400, "invalid_request_error", "system and tools are kept by the thread: leave them out");
    const previous = body.thread.previous_message_id;
    const thread = [...this.threads].find(
      (candidate) => candidate.lastMessageId === previous || candidate.messages.some((m) => m.id === previous),
    );
    if (!thread) return this.refuse(404, "thread_not_found", `no thread holds ${previous} (expired or unknown)`);
    if (thread.inFlight === previous)
      return this.refuse(409, "thread_continue_in_flight", `${previous} is being continued by another request`);
    if (thread.lastMessageId !== previous)
      return this.refuse(409, "thread_already_continued", `${previous} was continued already`);
    if (thread.fingerprint !== fingerprint)
      return this.refuse(400, "thread_fingerprint_mismatch", "model or thinking differ from the thread's");
    thread.lastRequestAt = now;
    thread.inFlight = previous;
    const conversation = {
      ...withoutThread(body),
      system: thread.system,
      tools: thread.tools,
      messages: [...thread.messages.map(stripId), ...body.messages],
    };
    if (conversation.system === undefined) delete conversation.system;
    if (conversation.tools === undefined) delete conversation.tools;
    return this.turn(thread, "continue", conversation, body.messages);
  }

  /** An accepted request; its reply gets the next id (`msg_thread_<n>`: the n-th accepted threaded request). */
  private turn(thread: Thread, kind: ThreadTurn["kind"], conversation: any, sent: any[]): ThreadTurn {
    const messageId = `msg_thread_${++this.replies}`;
    return {
      kind,
      conversation,
      messageId,
      complete: (content) => {
        thread.inFlight = undefined;
        // What the thread holds next: without the request's cache marks, which are per request.
        thread.messages.push(...structuredClone(sent).map(unmarked), {
          role: "assistant",
          content,
          id: messageId,
        });
        thread.lastMessageId = messageId;
        this.threads.add(thread);
      },
      abandon: () => {
        thread.inFlight = undefined;
      },
    };
  }

  private refuse(status: number, type: string, message: string): ThreadRefusal {
    this.refusals.push(type);
    return { status, body: { type: "error", error: { type, message } } };
  }
}

function withoutThread(body: any): any {
  const { thread: _thread, ...rest } = body;
  return rest;
}

function stripId(message: any): any {
  const { id: _id, ...rest } = message;
  return rest;
}

function unmarked(message: any): any {
  if (!Array.isArray(message.content)) return message;
  return { ...message, content: message.content.map(({ cache_control: _c, ...block }: any) => block) };
}

/** A body without its per-request cache marks, for comparing what reached the model. */
export function withoutCacheMarks(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, inner) => (key === "cache_control" ? undefined : inner)));
}

// Anthropic's message threads (beta `message-threads-2026-08-12`): the API keeps the conversation,
// and each request sends only what is new (docs/providers.md, "Server-side conversation state").
// When a request continues and when it creates is server-state.ts's, for every API; this file
// says how a thread's requests look and how the API refuses them.
import type { AssistantMessage } from "../../core/messages.ts";
import type { HttpStatusError } from "../post-json.ts";
import type { StateWire } from "../server-state.ts";
import { toWireMessages, type WireMessage } from "./anthropic-request.ts";

const THREADS_BETA = "message-threads-2026-08-12";

/**
 * Message threads as server-state.ts keeps them. The API drops a thread five minutes after its
 * last request. *Decision*: one idle for 4.5 minutes is not tried (a create goes at once rather
 * than after a 404); the 30 s cover the upload and the clocks' difference.
 */
export const MESSAGE_THREADS: StateWire<WireMessage> = {
  idleMs: 4.5 * 60_000,
  items: (body) => unmarked(body.messages as WireMessage[]),
  fixed: (body) => [body.system, body.tools, body.model, body.thinking ?? null],
  // A thread ends with a reply; what follows it is a user message (tool results are one).
  canFollow: (next) => next.role === "user",
  // A continue leaves out system and tools: the thread keeps them.
  continued(body, from, replyId) {
    const { system: _system, tools: _tools, ...rest } = body;
    return {
      ...rest,
      messages: (body.messages as WireMessage[]).slice(from),
      thread: { type: "continue", previous_message_id: replyId },
    };
  },
  created: (body) => ({ ...body, thread: { type: "create" } }),
  refusal: threadRefusal,
  replyItems(reply: AssistantMessage) {
    const wire = toWireMessages([reply]);
    return wire.length === 1 ? unmarked(wire) : []; // an empty reply: no message for the next request to follow
  },
};

/**
 * Why the API refused a continue, when it did: a `thread_*` error (404 not found, 409 continued
 * or in flight, 400 fingerprint), or any 404, which is what a continue the API cannot serve answers.
 */
function threadRefusal(error: HttpStatusError): string | undefined {
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

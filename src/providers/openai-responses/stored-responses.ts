// OpenAI's stored responses: with `store: true` the Responses API keeps each response (its input
// and output), and a request naming it in `previous_response_id` sends only the items since
// (docs/providers.md, "Server-side conversation state"). When a request continues and when it
// sends everything is server-state.ts's, for every API; this file says how the requests look and
// how the API refuses them.
// *Decision*: on by default at api.openai.com for the models the catalogue names (every model
// OpenAI serves there), as Anthropic's threads are at api.anthropic.com: a stored response is
// what the issue asks for ("where the account and the user's settings allow storing"), OpenAI
// keeps it 30 days as it keeps every response its dashboard shows, and `zeroDataRetention` in
// config.json (or `serverState: false`, HARNESS_SERVER_STATE=off) keeps everything stateless.
// An account that stores nothing (zero data retention set by the organisation) answers each
// continue `previous_response_not_found`: each falls back once, and after three in a row harness
// stops asking. A backend that refuses `store: true` outright stops it at once.
import type { AssistantMessage } from "../../core/messages.ts";
import type { HttpStatusError } from "../post-json.ts";
import type { StateWire } from "../server-state.ts";
import { toInputItems } from "./openai-responses-request.ts";

type InputItem = Record<string, unknown>;

/** OpenAI keeps a stored response 30 days; a day's margin. */
const STORED_FOR_MS = 29 * 24 * 3600_000;

export const STORED_RESPONSES: StateWire<InputItem> = {
  idleMs: STORED_FOR_MS,
  stopAfterRefusals: 3,
  items: (body) => body.input as InputItem[],
  fixed: (body) => [body.instructions ?? null, body.tools ?? null, body.model, body.reasoning ?? null],
  // After a response, anything may come: a user message, or a function call's output.
  canFollow: () => true,
  // `instructions` and `tools` go with every request: the server carries neither over from the
  // response named (API reference, `instructions`: "the instructions from a previous response
  // will not be carried over to the next response").
  continued: (body, from, replyId) => ({
    ...body,
    input: (body.input as InputItem[]).slice(from),
    previous_response_id: replyId,
    store: true,
  }),
  created: (body) => ({ ...body, store: true }),
  refusal: responseRefusal,
  replyItems: (reply: AssistantMessage) => toInputItems([reply]),
  storeRefused: (error) =>
    error.status === 400 && /store must be set to false/i.test(error.message) ? "store_refused" : undefined,
};

/**
 * Why the API refused a continue: `previous_response_not_found` (400; an unknown, expired or
 * unstored id), another error about `previous_response_id` (a backend's terser "Invalid
 * `previous_response_id`.", Soju06/codex-lb#1817), or a 404 from a server that answers so.
 */
function responseRefusal(error: HttpStatusError): string | undefined {
  const wire = (error.error as { error?: { code?: unknown; param?: unknown; message?: unknown } } | undefined)?.error;
  if (wire?.code === "previous_response_not_found") return wire.code;
  if (wire?.param === "previous_response_id" || /previous_response_id/.test(String(wire?.message ?? "")))
    return typeof wire?.code === "string" ? wire.code : "previous_response_id";
  return error.status === 404 ? "not_found" : undefined;
}

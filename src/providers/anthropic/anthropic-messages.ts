// The Anthropic Messages adapter: `POST /v1/messages` (post-json.ts), and its model list.
import type { ModelEvent, ModelRequest, Provider } from "../../core/provider.ts";
import type { AdapterSettings } from "../adapter-settings.ts";
import { errorContextFor, toProviderError } from "../http-errors.ts";
import { getJson, idsOf, MAX_PAGES } from "../list-models.ts";
import { endpoint, postJson } from "../post-json.ts";
import { planWith } from "../thinking-levels.ts";
import { type WireFormat, wireProvider } from "../wire-reply.ts";
import { anthropicHeaders, anthropicThinking, serverToolsFor, toAnthropicRequest } from "./anthropic-request.ts";
import {
  AnthropicStreamAccumulator,
  type AnthropicStreamEvent,
  toStreamEvents,
  type WireMessageReply,
} from "./anthropic-stream.ts";
import { type ThreadCall, ThreadKeeper, withThreadsBeta } from "./anthropic-threads.ts";

export function createAnthropicProvider(settings: AdapterSettings): Provider {
  const errorContext = errorContextFor(
    { ...settings, keyEnv: settings.keyEnv ?? "ANTHROPIC_API_KEY" },
    "Anthropic Messages",
  );
  const thinking = planWith(anthropicThinking, settings).fields;
  const serverTools = serverToolsFor(settings);
  // A pasted `.../v1` base would double the version in the path.
  const url = endpoint(settings.baseUrl.replace(/\/v1\/?$/, ""), "v1/messages");
  const headers = anthropicHeaders(settings);

  const toBody = (request: ModelRequest) => toAnthropicRequest(request, settings.model, thinking, serverTools);
  if (!settings.serverState)
    return wireProvider(settings, errorContext, ANTHROPIC_FORMAT, (request, signal) =>
      postJson(url, headers, toBody(request), signal),
    );

  // Message threads (anthropic-threads.ts): resolve-provider.ts turned them on for this endpoint and model.
  const keeper = new ThreadKeeper();
  const threadHeaders = withThreadsBeta(headers);
  return {
    name: settings.name,
    model: settings.model,
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      const call = keeper.call();
      const provider = wireProvider(settings, errorContext, noting(call), (request, signal) =>
        call.post(toBody(request), (body) => postJson(url, threadHeaders, body, signal)),
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

/** ANTHROPIC_FORMAT, telling `call` the reply's id (message_start), which the next request continues from. */
function noting(call: ThreadCall): WireFormat<AnthropicStreamEvent> {
  return {
    ...ANTHROPIC_FORMAT,
    eventsOfWhole(body, context) {
      const id = (body as { id?: unknown } | undefined)?.id;
      if (typeof id === "string") call.noteMessageId(id);
      return ANTHROPIC_FORMAT.eventsOfWhole(body, context);
    },
    newAccumulator() {
      const accumulator = ANTHROPIC_FORMAT.newAccumulator();
      return {
        add(event) {
          if (event.type === "message_start") call.noteMessageId(event.message?.id);
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

/** How Anthropic Messages replies fold into a message. */
const ANTHROPIC_FORMAT: WireFormat<AnthropicStreamEvent> = {
  newAccumulator: () => new AnthropicStreamAccumulator(),
  /** One plain JSON message, as the events that would have streamed it. */
  eventsOfWhole(body, context) {
    const reply = body as WireMessageReply & { type?: string };
    if (reply.type === "error") throw toProviderError({ error: reply }, context);
    return toStreamEvents(reply);
  },
  /** `event: error` mid-stream ({"type":"error","error":{"type":"overloaded_error",...}}). */
  checkEvent(event, sseName, context) {
    if (sseName === "error" || event?.type === "error") throw toProviderError({ error: event }, context);
  },
};

/** Anthropic's largest page of models. */
const PAGE_SIZE = 1000;

/** `GET /v1/models`, paged by `after_id` while `has_more`; the ids sorted. */
export async function listAnthropicModels(settings: AdapterSettings, signal: AbortSignal): Promise<string[]> {
  const headers = anthropicHeaders(settings);
  const base = `${settings.baseUrl.replace(/\/v1$/, "")}/v1/models?limit=${PAGE_SIZE}`;
  const ids: string[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const page = await getJson(
      after ? `${base}&after_id=${encodeURIComponent(after)}` : base,
      headers,
      settings,
      signal,
    );
    ids.push(...idsOf(page, settings));
    if (!(page as { has_more?: boolean }).has_more) break;
    after = (page as { last_id?: string }).last_id;
    if (!after) break;
  }
  return ids.sort();
}

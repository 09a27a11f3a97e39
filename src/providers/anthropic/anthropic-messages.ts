// The Anthropic Messages adapter: `POST /v1/messages` (post-json.ts), and its model list.
import type { ModelRequest, Provider } from "../../core/provider.ts";
import type { AdapterSettings } from "../adapter-settings.ts";
import { errorContextFor, toProviderError } from "../http-errors.ts";
import { getJson, idsOf, MAX_PAGES } from "../list-models.ts";
import { endpoint, postJson } from "../post-json.ts";
import { type ReplyIds, StateKeeper, stateProvider } from "../server-state.ts";
import { planWith } from "../thinking-levels.ts";
import { type WireFormat, wireProvider } from "../wire-reply.ts";
import { anthropicHeaders, anthropicThinking, serverToolsFor, toAnthropicRequest } from "./anthropic-request.ts";
import {
  AnthropicStreamAccumulator,
  type AnthropicStreamEvent,
  toStreamEvents,
  type WireMessageReply,
} from "./anthropic-stream.ts";
import { MESSAGE_THREADS, withThreadsBeta } from "./anthropic-threads.ts";

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
  const ids: ReplyIds<AnthropicStreamEvent> = {
    ofEvent: (event) => (event.type === "message_start" ? event.message?.id : undefined),
    ofWhole: (body) => {
      const id = (body as { id?: unknown } | undefined)?.id;
      return typeof id === "string" ? id : undefined;
    },
  };
  const threadHeaders = withThreadsBeta(headers);
  return stateProvider(
    settings,
    errorContext,
    { ...ANTHROPIC_FORMAT, ...ids },
    new StateKeeper(MESSAGE_THREADS),
    toBody,
    (body, signal) => postJson(url, threadHeaders, body, signal),
  );
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

// The OpenAI-compatible chat-completions adapter: `POST /chat/completions` (post-json.ts).
import type { ModelEvent, ModelRequest, Provider } from "../../core/provider.ts";
import type { AdapterSettings } from "../adapter-settings.ts";
import { type ErrorContext, errorContextFor, toProviderError } from "../http-errors.ts";
import { compatFor } from "../openai-compat.ts";
import { endpoint, type HttpReply } from "../post-json.ts";
import { openAIHeaders } from "../request-headers.ts";
import { signedPost } from "../sign-in/sign-in-headers.ts";
import { parseEvent, readSse } from "../sse.ts";
import { planWith } from "../thinking-levels.ts";
import { watchedCall } from "../wire-reply.ts";
import { chatThinking, toChatRequest } from "./openai-chat-request.ts";
import { type ChatChunk, ChatStreamAccumulator } from "./openai-chat-stream.ts";
import { recoverTextToolCalls } from "./text-tool-calls.ts";

/** `settings.apiKey` may be absent for servers that need none (Ollama, llama.cpp); a placeholder is sent then. */
export function createOpenAIChatProvider(config: AdapterSettings): Provider {
  const compat = compatFor(config.baseUrl, config.name, config.model);
  const errorContext = errorContextFor(config, "OpenAI chat completions");
  const url = endpoint(config.baseUrl, "chat/completions");
  const headers = openAIHeaders(config);
  const thinking = planWith(chatThinking, config).fields;

  return {
    name: config.name,
    model: config.model,
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      const accumulator = new ChatStreamAccumulator();
      const ending = { sawDone: false };
      yield* watchedCall(
        {
          settings: config,
          context: errorContext,
          open: async (callSignal) =>
            signedPost(config, url, headers, toChatRequest(request, config.model, compat, thinking), callSignal),
          async *fold(response) {
            for await (const chunk of readChunks(response, errorContext, ending)) yield* accumulator.add(chunk);
            yield* accumulator.end();
          },
          // `[DONE]` ends a stream cleanly even without a finish_reason (some servers send text,
          // usage, then `[DONE]`); only a stream that stops with neither was cut.
          isComplete: () => accumulator.isComplete || ending.sawDone,
        },
        signal,
      );
      const toolNames = request.tools.map((tool) => tool.name);
      yield { type: "done", message: recoverTextToolCalls(accumulator.finish(), toolNames) };
    },
  };
}

/** The chunks of a reply: one plain JSON body (a server that ignores `stream: true`) or SSE up to `[DONE]`. */
async function* readChunks(
  response: HttpReply,
  context: ErrorContext,
  ending: { sawDone: boolean },
): AsyncIterable<ChatChunk> {
  const contentType = response.headers.get("content-type") ?? "";
  if (contentType.includes("application/json")) {
    yield checked(await response.json(), context);
    return;
  }
  for await (const event of readSse(response, context)) {
    if (event.data.startsWith("[DONE]")) {
      ending.sawDone = true;
      return;
    }
    yield checked(parseEvent(event.data, context), context);
  }
}

/** A chunk, unless it is an error object (mid-stream errors come as `{error: {...}}` payloads). */
function checked(payload: unknown, context: ErrorContext): ChatChunk {
  if (payload && typeof payload === "object" && "error" in payload && (payload as { error: unknown }).error)
    throw toProviderError({ error: payload }, context);
  return payload as ChatChunk;
}

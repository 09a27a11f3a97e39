// The OpenAI-compatible chat-completions adapter: `POST /chat/completions` over fetch (post-json.ts).
import type { ModelEvent, ModelRequest, Provider } from "../core/provider.ts";
import { ProviderError } from "../core/provider.ts";
import { CallWatch } from "./call-limits.ts";
import { errorContextFor, toProviderError, type ErrorContext } from "./http-errors.ts";
import { ChatStreamAccumulator, type ChatChunk } from "./openai-chat-stream.ts";
import { toChatRequest } from "./openai-chat-request.ts";
import { compatFor } from "./openai-compat.ts";
import { endpoint, openAIHeaders, postJson } from "./post-json.ts";
import type { ProviderSettings } from "./index.ts";
import { recoverTextToolCalls } from "./text-tool-calls.ts";
import { parseEvent, readSse } from "./sse.ts";
import { planThinking } from "./thinking.ts";

/** `settings.apiKey` may be absent for servers that need none (Ollama, llama.cpp); a placeholder is sent then. */
export function createOpenAIChatProvider(config: Omit<ProviderSettings, "api">): Provider {
  const compat = compatFor(config.baseUrl);
  const errorContext = errorContextFor(config, "OpenAI chat completions");
  const url = endpoint(config.baseUrl, "chat/completions");
  const headers = openAIHeaders(config);
  const thinking = planThinking({ ...config, api: "openai" }).fields;

  return {
    name: config.name,
    model: config.model,
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      const accumulator = new ChatStreamAccumulator();
      const watch = new CallWatch(signal, config, `${config.name} (${config.baseUrl})`);
      const ending = { sawDone: false };
      try {
        const body = toChatRequest(request, config.model, compat, thinking);
        const response = await postJson(url, headers, body, watch.signal);
        for await (const chunk of readChunks(watch.body(response), errorContext, ending)) {
          for (const event of accumulator.add(chunk)) yield event;
        }
        for (const event of accumulator.end()) yield event;
      } catch (error) {
        throw watch.failure ?? toProviderError(error, errorContext);
      } finally {
        watch.close();
      }
      // A bound's abort may end the stream quietly rather than with an error.
      if (watch.failure) throw watch.failure;
      if (signal.aborted) throw new ProviderError("aborted", "interrupted");
      // `[DONE]` ends a stream cleanly even without a finish_reason (some servers send text,
      // usage, then `[DONE]`); only a stream that stops with neither was cut.
      if (!accumulator.isComplete && !ending.sawDone)
        throw new ProviderError("network", `the connection to ${config.name} dropped before the reply was complete`);
      const toolNames = request.tools.map((tool) => tool.name);
      yield { type: "done", message: recoverTextToolCalls(accumulator.finish(), toolNames) };
    },
  };
}

/** The chunks of a reply: one plain JSON body (a server that ignores `stream: true`) or SSE up to `[DONE]`. */
async function* readChunks(
  response: Response,
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

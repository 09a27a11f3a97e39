// The OpenAI-compatible chat-completions adapter, on the official `openai` client.
import type { ModelEvent, ModelRequest, Provider } from "../core/provider.ts";
import { ProviderError } from "../core/provider.ts";
import { toProviderError, type ErrorContext } from "./http-errors.ts";
import { ChatStreamAccumulator, type ChatChunk } from "./openai-chat-stream.ts";
import { toChatRequest } from "./openai-chat-request.ts";
import { compatFor } from "./openai-compat.ts";
import type { ProviderSettings } from "./index.ts";
import { requestAbort } from "./request-abort.ts";
import { recoverTextToolCalls } from "./text-tool-calls.ts";

const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/** `settings.apiKey` may be absent for servers that need none (Ollama, llama.cpp); a placeholder is sent then. */
export function createOpenAIChatProvider(config: Omit<ProviderSettings, "api">): Provider {
  const compat = compatFor(config.baseUrl);
  const errorContext: ErrorContext = { provider: config.name, model: config.model, baseUrl: config.baseUrl, keyEnv: config.keyEnv };
  let client: Promise<import("openai").OpenAI> | undefined;
  const getClient = () =>
    (client ??= import("openai").then(
      ({ OpenAI }) =>
        new OpenAI({
          apiKey: config.apiKey || "no-key",
          baseURL: config.baseUrl,
          defaultHeaders: config.headers,
          maxRetries: 0, // the loop retries, so it can report each retry as an event
          timeout: config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        }),
    ));

  return {
    name: config.name,
    model: config.model,
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      const accumulator = new ChatStreamAccumulator();
      const call = requestAbort(signal);
      try {
        const openai = await getClient();
        const body = toChatRequest(request, config.model, compat);
        // asResponse() lets us see a server that ignores `stream: true` and answers plain JSON.
        const response = await openai.chat.completions.create(body as never, { signal: call.controller.signal }).asResponse();
        for await (const chunk of readChunks(response, call.controller)) {
          for (const event of accumulator.add(chunk)) yield event;
        }
      } catch (error) {
        throw toProviderError(error, errorContext);
      } finally {
        call.release();
      }
      if (signal.aborted) throw new ProviderError("aborted", "interrupted");
      if (!accumulator.isComplete) throw new ProviderError("network", `the connection to ${config.name} dropped before the reply was complete`);
      const toolNames = request.tools.map((tool) => tool.name);
      yield { type: "done", message: recoverTextToolCalls(accumulator.finish(), toolNames) };
    },
  };
}

async function* readChunks(response: Response, controller: AbortController): AsyncIterable<ChatChunk> {
  const contentType = response.headers.get("content-type") ?? "";
  if (contentType.includes("application/json")) {
    yield (await response.json()) as ChatChunk;
    return;
  }
  const { Stream } = await import("openai/streaming");
  yield* Stream.fromSSEResponse<ChatChunk>(response, controller);
}

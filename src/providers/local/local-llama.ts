// `--provider local`: a GGUF model run in-process by node-llama-cpp; no key, no server.
// node-llama-cpp is optional (its binaries weigh hundreds of MB), so it is imported only on the
// first model call (local-load.ts), and its absence is an error that says how to add it.
import { homedir } from "node:os";
import { join } from "node:path";
import type { ChatHistoryItem, ChatModelFunctions, LlamaChat, LlamaChatResponse } from "node-llama-cpp";
import type { Usage } from "../../core/messages.ts";
import { type ModelEvent, type ModelRequest, type Provider, ProviderError } from "../../core/provider.ts";
import { AsyncQueue } from "../../shared/async-queue.ts";
import type { AdapterSettings } from "../adapter-settings.ts";
import { imageRefusal, toAssistantMessage, toChatHistory, toFunctions } from "./local-history.ts";
import { type LoadedModel, loadModel, showLoad } from "./local-load.ts";
import { tokensToRead, watchPromptReading } from "./local-progress.ts";
import { offeredTools, toDocumentedFunctions } from "./local-tools.ts";

/** Output cap when the request names none: a runaway small model must not fill the whole context. */
const DEFAULT_MAX_TOKENS = 8192;

/** The local provider: a Provider plus what only an in-process model can tell. */
export interface LocalProvider extends Provider {
  /** Tokens the loaded context holds (local-resources.ts chooses them). Loads the model. */
  contextWindow(): Promise<number>;
  /** Frees the model and its memory; the next call loads it again. */
  dispose(): Promise<void>;
}

export function createLocalProvider(settings: AdapterSettings): LocalProvider {
  const modelsDir = settings.modelsDir ?? join(homedir(), ".harness", "models");
  let loading: Promise<LoadedModel> | undefined;
  let hasSaidLoad = false;

  const load = (signal: AbortSignal) => {
    loading ??= loadModel(settings, modelsDir, signal).catch((error: unknown) => {
      loading = undefined; // a failed load (an interrupted download, say) is tried again next time
      throw error;
    });
    return loading;
  };

  return {
    name: settings.name,
    model: settings.model,
    async contextWindow() {
      return (await load(new AbortController().signal)).context.contextSize;
    },
    async dispose() {
      const loaded = await loading?.catch(() => undefined);
      loading = undefined;
      await loaded?.model.dispose();
    },
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      const refusal = imageRefusal(request, settings.model);
      if (refusal) throw new ProviderError("bad_request", refusal);
      const loaded = await load(signal);
      const { chat } = loaded;
      const { offered, left } = offeredTools(request.tools, {
        contextSize: loaded.context.contextSize,
        onCpu: loaded.model.gpuLayers === 0,
      });
      loaded.documented.functions = toDocumentedFunctions(offered);
      if (!hasSaidLoad) {
        hasSaidLoad = true;
        const tools =
          left.length > 0
            ? ` · ${offered.length} of ${request.tools.length} tools (${loaded.model.gpuLayers === 0 ? "on the CPU" : "small context"}: ${left.join(", ")} left out)`
            : "";
        showLoad(`${loaded.loadLine}${tools}`);
      }
      const queue = new AsyncQueue<ModelEvent>();
      const controller = new AbortController(); // also stops generation if our consumer walks away
      const forwardAbort = () => controller.abort();
      signal.addEventListener("abort", forwardAbort, { once: true });
      const meter = chat.sequence.tokenMeter.getState();
      const history = toChatHistory(request) as ChatHistoryItem[];
      const functions = toFunctions(offered);
      const reading = watchPromptReading(chat, tokensToRead(chat, history, loaded.documented.functions), (event) =>
        queue.push(event),
      );
      let response: LlamaChatResponse<ChatModelFunctions> | undefined;
      let failure: unknown;
      let callIndex = 0;
      const generation = chat
        .generateResponse(history, {
          functions,
          maxTokens: request.maxTokens ?? settings.maxTokens ?? DEFAULT_MAX_TOKENS,
          ...loaded.sampling,
          signal: controller.signal,
          stopOnAbortSignal: true,
          onToken: () => reading.stop(), // the prompt is read once the first token comes
          onTextChunk: (text) => text && queue.push({ type: "text_delta", text }),
          onResponseChunk: (chunk) => {
            if (chunk.type === "segment" && chunk.segmentType === "thought" && chunk.text)
              queue.push({ type: "thinking_delta", text: chunk.text });
          },
          onFunctionCall: (call) =>
            queue.push({ type: "tool_call_delta", index: callIndex++, name: call.functionName }),
        })
        .then(
          (result) => void (response = result),
          (error: unknown) => void (failure = error),
        )
        .finally(() => {
          reading.stop();
          queue.close();
        });
      try {
        for await (const event of queue) yield event;
        await generation;
      } finally {
        signal.removeEventListener("abort", forwardAbort);
        controller.abort();
        await generation;
      }
      if (signal.aborted) throw new ProviderError("aborted", "interrupted");
      if (failure !== undefined || !response) throw generationError(failure, chat);
      const message = toAssistantMessage(response, settings.model, offered);
      message.usage = usageSince(meter, chat);
      yield { type: "done", message };
    },
  };
}

/** Tokens this call evaluated and generated; the rest of the prompt came from the context's cache. */
function usageSince(before: { usedInputTokens: number; usedOutputTokens: number }, chat: LlamaChat): Usage {
  const after = chat.sequence.tokenMeter.getState();
  const input = after.usedInputTokens - before.usedInputTokens;
  const output = after.usedOutputTokens - before.usedOutputTokens;
  return { input, output, cacheRead: Math.max(0, chat.sequence.nextTokenIndex - output - input), cacheWrite: 0 };
}

function generationError(error: unknown, chat: LlamaChat): ProviderError {
  const message = error instanceof Error ? error.message : String(error);
  if (/context size|context shift|too long/i.test(message)) {
    return new ProviderError(
      "context_overflow",
      `the conversation no longer fits the local model's context (${chat.context.contextSize} tokens): start a new session or compact this one`,
      { cause: error },
    );
  }
  return new ProviderError("server", `the local model failed: ${message}`, { cause: error });
}

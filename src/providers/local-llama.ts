// `--provider local`: a GGUF model run in-process by node-llama-cpp; no key, no server.
// node-llama-cpp is optional (its binaries weigh hundreds of MB), so it is imported only here,
// on the first model call, and its absence is an error that says how to add it.
import { existsSync } from "node:fs";
import { open } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type {
  ChatHistoryItem,
  LlamaChat,
  LlamaChatResponse,
  LlamaContext,
  LlamaModel,
  ChatModelFunctions,
} from "node-llama-cpp";
import { AsyncQueue } from "../core/async-queue.ts";
import { sleep } from "../core/helpers.ts";
import { ProviderError, type ModelEvent, type ModelRequest, type Provider } from "../core/provider.ts";
import type { Usage } from "../core/messages.ts";
import type { ProviderSettings } from "./index.ts";
import { downloadFile, formatProgress, resolveModelSource, type DownloadProgress } from "./local-download.ts";
import { imageRefusal, toAssistantMessage, toChatHistory, toFunctions } from "./local-history.ts";
import { chooseSampling, describeToolSyntax, type Sampling } from "./local-chat-settings.ts";
import { offeredTools, toDocumentedFunctions, withDocumentedTools } from "./local-tools.ts";
import { CONTEXT_STEPS, chooseContextSize, chooseThreads, describeLoad, freeMemoryBytes } from "./local-resources.ts";

/** The node-llama-cpp release this adapter is written and tested against. */
export const NODE_LLAMA_CPP_VERSION = "3.21.1";
/** Output cap when the request names none: a runaway small model must not fill the whole context. */
const DEFAULT_MAX_TOKENS = 8192;
/** How often the download bar is redrawn. */
const PROGRESS_INTERVAL_MS = 200;
/** llama.cpp error lines kept to explain a failed load. */
const MAX_LOG_LINES = 8;
/** How long a failed load waits for llama.cpp's log line that says why. */
const LOG_WAIT_MS = 1000;
/** How often that wait looks for the line. */
const LOG_POLL_MS = 10;
const GGUF_MAGIC = "GGUF";

/** The local provider: a Provider plus what only an in-process model can tell. */
export interface LocalProvider extends Provider {
  /** Tokens the loaded context holds (local-resources.ts chooses them). Loads the model. */
  contextWindow(): Promise<number>;
  /** Frees the model and its memory; the next call loads it again. */
  dispose(): Promise<void>;
}

interface LoadedModel {
  model: LlamaModel;
  context: LlamaContext;
  chat: LlamaChat;
  /** What the load took (`context 8k · ~2.0 GB · 2 threads`), said with the first reply on a terminal. */
  loadLine: string;
  /** How this model's replies are sampled (local-chat-settings.ts). */
  sampling: Sampling;
  /** The tools as the next prompt documents them (local-tools.ts); set per request. */
  documented: { functions?: ChatModelFunctions };
}

export function createLocalProvider(settings: ProviderSettings): LocalProvider {
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
      const { offered, left } = offeredTools(request.tools, loaded.context.contextSize);
      loaded.documented.functions = toDocumentedFunctions(offered);
      if (!hasSaidLoad) {
        hasSaidLoad = true;
        const tools =
          left.length > 0
            ? ` · ${offered.length} of ${request.tools.length} tools (small context: ${left.join(", ")} left out)`
            : "";
        showLoad(`${loaded.loadLine}${tools}`);
      }
      const queue = new AsyncQueue<ModelEvent>();
      const controller = new AbortController(); // also stops generation if our consumer walks away
      const forwardAbort = () => controller.abort();
      signal.addEventListener("abort", forwardAbort, { once: true });
      const meter = chat.sequence.tokenMeter.getState();
      let response: LlamaChatResponse<ChatModelFunctions> | undefined;
      let failure: unknown;
      let callIndex = 0;
      const generation = chat
        .generateResponse(toChatHistory(request) as ChatHistoryItem[], {
          functions: toFunctions(offered),
          maxTokens: request.maxTokens ?? settings.maxTokens ?? DEFAULT_MAX_TOKENS,
          ...loaded.sampling,
          signal: controller.signal,
          stopOnAbortSignal: true,
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
        .finally(() => queue.close());
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

/** The part of a GGUF file's metadata that names the model and may carry its sampling. */
interface GeneralMetadata {
  architecture?: string;
  name?: string;
  sampling?: Record<string, unknown>;
}

/** llama.cpp's recent error lines: its one native logger serves the whole process. */
const logLines: string[] = [];
let llamaInstance: Promise<import("node-llama-cpp").Llama> | undefined;

/** One llama.cpp runtime per process (its native logger and backends are process-wide anyway). */
function getLlama(nlc: typeof import("node-llama-cpp")) {
  llamaInstance ??= nlc
    .getLlama({
      build: "never", // building llama.cpp needs a compiler and the network; the prebuilt binaries come from npm
    progressLogs: false, // its console lines ("A prebuilt binary was not found") would break the stderr contract; noBinaryError says it
      logLevel: nlc.LlamaLogLevel.error,
      logger: (_level, line) => {
        logLines.push(line.trim());
        if (logLines.length > MAX_LOG_LINES) logLines.shift();
      },
    })
    .catch((error: unknown) => {
      throw error instanceof nlc.NoBinaryFoundError ? noBinaryError(error) : error;
    });
  llamaInstance.catch(() => (llamaInstance = undefined));
  return llamaInstance;
}

async function loadModel(settings: ProviderSettings, modelsDir: string, signal: AbortSignal): Promise<LoadedModel> {
  const nlc = await importNodeLlamaCpp();
  const source = resolveModelSource(settings.model, modelsDir, process.cwd());
  if (!existsSync(source.path)) {
    if (!source.url) {
      throw new ProviderError(
        "not_found",
        `no model file at ${source.path}: give --model a path to a .gguf file, or a reference such as hf:<user>/<repo>/<file>.gguf to download one`,
      );
    }
    await downloadFile(source.url, source.path, { signal, onProgress: progressBar(basename(source.path)) });
  }
  await checkGgufHeader(source.path);
  signal.throwIfAborted();

  const llama = await getLlama(nlc);
  let model: LlamaModel;
  logLines.length = 0;
  try {
    model = await llama.loadModel({ modelPath: source.path });
  } catch (error) {
    const detail = (await llamaCppError()) ?? (error instanceof Error ? error.message : String(error));
    const redownload = source.url ? "delete it to download it again" : "get a fresh copy";
    throw new ProviderError(
      "bad_request",
      `could not load the model ${source.path} (${detail}); the file may be truncated or damaged: ${redownload}`,
      { cause: error },
    );
  }
  const { context, loadLine } = await createContext(model, settings);
  const wrapper = nlc.resolveChatWrapper(model);
  const general = (model.fileInfo.metadata as { general?: GeneralMetadata }).general;
  const names = [general?.architecture ?? "", general?.name ?? "", basename(source.path)];
  const { sampling, source: samplingSource } = chooseSampling(names, general?.sampling);
  const isJinjaWithTools = wrapper instanceof nlc.JinjaTemplateChatWrapper && wrapper.usingJinjaFunctionCallTemplate;
  const documented: LoadedModel["documented"] = {};
  const chatWrapper = withDocumentedTools(wrapper, () => documented.functions);
  const chat = new nlc.LlamaChat({ contextSequence: context.getSequence(), chatWrapper });
  const line = `${loadLine} · ${describeToolSyntax(wrapper.wrapperName, isJinjaWithTools)} · sampling from ${samplingSource}`;
  return { model, context, chat, loadLine: line, documented, sampling };
}

/**
 * The model's context: on the CPU, the size local-resources.ts chooses from the model and the free
 * memory, with its threads, said once on a terminal; on a GPU, node-llama-cpp fits it to the VRAM
 * (it knows that memory; we do not), within the same cap.
 */
async function createContext(
  model: LlamaModel,
  settings: ProviderSettings,
): Promise<{ context: LlamaContext; loadLine: string }> {
  const threads = chooseThreads({
    configured: settings.threads,
    mathCores: model.llama.cpuMathCores,
    modelBytes: model.size,
  });
  if (model.gpuLayers > 0) {
    const max = settings.contextWindow ?? CONTEXT_STEPS[0];
    const context = await model.createContext({ contextSize: { max }, threads });
    return { context, loadLine: describeLoad({ contextSize: context.contextSize, memoryBytes: model.size }, threads) };
  }
  const insights = model.fileInsights;
  const choice = await chooseContextSize({
    configured: settings.contextWindow,
    trainedLength: model.trainContextSize,
    parameters: insights.totalParameters,
    modelBytes: model.size,
    freeBytes: freeMemoryBytes(),
    bytesFor: async (contextSize) => {
      const need = await insights.estimateContextResourceRequirementsV2({ contextSize, modelGpuLayers: 0 });
      return need.cpuRam + need.gpuVram;
    },
  });
  const context = await model.createContext({ contextSize: choice.contextSize, threads });
  return { context, loadLine: describeLoad(choice, threads) };
}

/** The load line on a terminal (stderr stays quiet otherwise, as the contract says). */
function showLoad(line: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2Klocal model: ${line}\n`);
}

/**
 * llama.cpp's own reason for a failed load. Its log lines come from a native thread and may reach
 * us just after the failure does, so wait for one a little (this runs only on the error path).
 */
async function llamaCppError(): Promise<string | undefined> {
  const deadline = Date.now() + LOG_WAIT_MS;
  while (true) {
    const line = [...logLines].reverse().find((entry) => /error/i.test(entry));
    if (line || Date.now() > deadline) return line;
    await sleep(LOG_POLL_MS);
  }
}

async function importNodeLlamaCpp(): Promise<typeof import("node-llama-cpp")> {
  try {
    return await import("node-llama-cpp");
  } catch (error) {
    if ((error as { code?: string }).code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw new ProviderError(
      "bad_request",
      `--provider local needs node-llama-cpp, which is not installed: run \`npm install --no-save node-llama-cpp@${NODE_LLAMA_CPP_VERSION}\` in ${harnessFolder()}`,
      { cause: error },
    );
  }
}

/**
 * node-llama-cpp found no llama.cpp build it can load: its prebuilt binaries come as optional
 * packages (`@node-llama-cpp/linux-x64`, ...) that an install with --omit=optional, or on a
 * platform with none, lacks; harness never builds llama.cpp (build: "never").
 */
function noBinaryError(error: Error): ProviderError {
  const platform = `${process.platform}-${process.arch}`;
  return new ProviderError(
    "bad_request",
    `--provider local found no prebuilt llama.cpp binary for ${platform}: node-llama-cpp brings them as optional packages such as @node-llama-cpp/${platform}. Run \`npm install --no-save node-llama-cpp@${NODE_LLAMA_CPP_VERSION}\` in ${harnessFolder()} without --omit=optional (if ${platform} has no prebuilt binary, see https://node-llama-cpp.withcat.ai/guide/building-from-source)`,
    { cause: error },
  );
}

/** The folder of harness's package.json, whose node_modules the import above searches. */
function harnessFolder(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(folder, "package.json")) && dirname(folder) !== folder) folder = dirname(folder);
  return folder;
}

/** Says plainly what a file is not, before llama.cpp says it less plainly. */
async function checkGgufHeader(path: string): Promise<void> {
  const file = await open(path, "r");
  try {
    const { bytesRead, buffer } = await file.read(Buffer.alloc(4), 0, 4, 0);
    if (bytesRead < 4 || buffer.toString("latin1") !== GGUF_MAGIC) {
      throw new ProviderError(
        "bad_request",
        `${path} is not a GGUF model file (it does not start with "GGUF"): give --model a .gguf file`,
      );
    }
  } finally {
    await file.close();
  }
}

/** A one-line bar on stderr, only when it is a terminal (the contract keeps stderr quiet otherwise). */
function progressBar(name: string): ((progress: DownloadProgress) => void) | undefined {
  const stderr = process.stderr;
  if (!stderr.isTTY) return undefined;
  let drawnAt = 0;
  return (progress) => {
    const isDone = progress.total !== undefined && progress.received >= progress.total;
    if (!isDone && Date.now() - drawnAt < PROGRESS_INTERVAL_MS) return;
    drawnAt = Date.now();
    stderr.write(`\r\x1b[2Kdownloading ${formatProgress(name, progress)}${isDone ? "\n" : ""}`);
  };
}

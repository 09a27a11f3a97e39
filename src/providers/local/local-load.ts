// Loading the in-process model: node-llama-cpp (optional, imported on first use), the GGUF file
// (downloaded first when it is a reference), its context and chat, and what the load took.
import { existsSync } from "node:fs";
import { open } from "node:fs/promises";
import { basename, dirname } from "node:path";
import type { ChatModelFunctions, LlamaChat, LlamaContext, LlamaModel } from "node-llama-cpp";
import { ProviderError } from "../../core/provider.ts";
import { sleep } from "../../shared/helpers.ts";
import { packageFolder } from "../../shared/package-folder.ts";
import type { AdapterSettings } from "../adapter-settings.ts";
import { chooseSampling, describeToolSyntax, type Sampling } from "./local-chat-settings.ts";
import { type DownloadProgress, downloadFile, formatProgress, resolveModelSource } from "./local-download.ts";
import {
  CONTEXT_STEPS,
  type ContextChoice,
  chooseContextSize,
  chooseThreads,
  describeLoad,
  freeMemoryBytes,
} from "./local-resources.ts";
import { withDocumentedTools } from "./local-tools.ts";

/** The node-llama-cpp release this adapter is written and tested against. */
export const NODE_LLAMA_CPP_VERSION = "3.21.1";
/** How often the download bar is redrawn. */
const PROGRESS_INTERVAL_MS = 200;
/** llama.cpp error lines kept to explain a failed load. */
const MAX_LOG_LINES = 8;
/** How long a failed load waits for llama.cpp's log line that says why. */
const LOG_WAIT_MS = 1000;
/** How often that wait looks for the line. */
const LOG_POLL_MS = 10;
const GGUF_MAGIC = "GGUF";

/** A model ready to answer. */
export interface LoadedModel {
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

export async function loadModel(
  settings: AdapterSettings,
  modelsDir: string,
  signal: AbortSignal,
): Promise<LoadedModel> {
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
  settings: AdapterSettings,
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
  const choice = await chooseCpuContext(model, settings.contextWindow);
  const context = await model.createContext({ contextSize: choice.contextSize, threads });
  return { context, loadLine: describeLoad(choice, threads) };
}

/** The context chooseContextSize picks for this model on the CPU, from node-llama-cpp's memory estimate. */
export function chooseCpuContext(model: LlamaModel, configured?: number): Promise<ContextChoice> {
  const insights = model.fileInsights;
  return chooseContextSize({
    configured,
    trainedLength: model.trainContextSize,
    parameters: insights.totalParameters,
    modelBytes: model.size,
    freeBytes: freeMemoryBytes(),
    bytesFor: async (contextSize) => {
      const need = await insights.estimateContextResourceRequirementsV2({ contextSize, modelGpuLayers: 0 });
      return need.cpuRam + need.gpuVram;
    },
  });
}

/** The load line on a terminal (stderr stays quiet otherwise, as the contract says). */
export function showLoad(line: string): void {
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
      `--provider local needs node-llama-cpp, which is not installed: run ${installNodeLlamaCpp(packageFolder())}`,
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
    `--provider local found no prebuilt llama.cpp binary for ${platform}: node-llama-cpp brings them as optional packages such as @node-llama-cpp/${platform}. Run ${installNodeLlamaCpp(packageFolder())} without --omit=optional (if ${platform} has no prebuilt binary, see https://node-llama-cpp.withcat.ai/guide/building-from-source)`,
    { cause: error },
  );
}

/**
 * The one command that installs node-llama-cpp where the import above finds it, and nothing else
 * of harness: installed globally (`<prefix>/lib/node_modules/agent-harness`), a global
 * node-llama-cpp lands beside it, which node's lookup up the folders finds; installed in a
 * project, the project's own; a clone has it as a devDependency. Not `npm install` in harness's
 * own folder: that would install its devDependencies too, or with --omit=dev skip node-llama-cpp,
 * which is one of them. --ignore-scripts: its prebuilt binaries are packages of their own, and its
 * install script would only try to build llama.cpp.
 */
function installNodeLlamaCpp(folder: string): string {
  const spec = `node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`;
  const parent = dirname(folder);
  if (basename(parent) !== "node_modules") return `\`npm ci\` in ${folder}`;
  if (basename(dirname(parent)) === "lib") return `\`npm install -g --ignore-scripts ${spec}\``;
  return `\`npm install --ignore-scripts ${spec}\` in ${dirname(parent)}`;
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

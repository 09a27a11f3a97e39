// The APIs harness speaks, one record each: what users see of it (name, label, key variable: the
// source of `--help`, the `--api` error and config.json's error) and what runs it (its adapter,
// loaded on first use, its thinking plan, model listing, request headers, and what it accepts of a
// conversation). The rest of harness reads these records and never switches on an API
// (test/unit/wire-api-records.test.ts checks it): a new wire API is its request, stream and adapter
// files and one record here.
//
// Decision: this module sits above each API's own files. It imports their pure parts (request
// fields, headers) and loads the adapters with import(); they import AdapterSettings, never this
// module, so the API kinds are derived from the records without an import cycle, and `--version`
// loads no adapter.
import type { Provider } from "../core/provider.ts";
import type { AdapterSettings } from "./adapter-settings.ts";
import { anthropicBudgetProblem, anthropicHeaders, anthropicThinking } from "./anthropic/anthropic-request.ts";
import { ANTHROPIC_API } from "./anthropic/anthropic-stream.ts";
import { GEMINI_API, geminiHeaders, geminiThinking } from "./gemini/gemini-request.ts";
import { CHAT_API, chatThinking } from "./openai-chat/openai-chat-request.ts";
import { RESPONSES_API, responsesThinking } from "./openai-responses/openai-responses-request.ts";
import { openAIHeaders } from "./request-headers.ts";
import { leftOut, type ThinkingPlanner } from "./thinking-levels.ts";

/** What a tool-call id must look like. An id that does not fit is mapped (replay.ts). */
export interface IdRule {
  pattern: RegExp;
  maxLength: number;
  /** The ids are exactly this many letters and digits (Mistral). */
  fixedLength?: number;
}

/**
 * What an API accepts of a conversation, as data; replay.ts and tool-limits.ts apply it (and the
 * servers' own rules, wire-rules.ts) before a request leaves, so a conversation from another
 * provider is sent in a form the target takes instead of failing every turn with a 400.
 */
export interface WireRules {
  toolCallId: IdRule;
  /** Tool (function) names; one that does not fit is renamed for the request and mapped back. */
  toolName: { pattern: RegExp; maxLength: number };
  /** The most tools one request may list. */
  maxTools?: number;
  /** The largest image, in bytes once decoded. */
  maxImageBytes?: number;
  /** Any JSON Schema is taken as a tool's schema (Gemini's `parametersJsonSchema`), so open shapes need no closing (open-shapes.ts). */
  takesOpenShapes?: true;
}

/** Everything harness asks of one API. */
export interface ApiRecord {
  /** The id messages, sessions and settings carry as `api`. */
  kind: string;
  /** What it is, in `--help` and errors. */
  label: string;
  /** Its adapter, loaded on first use (createProvider puts a wire API's behind the edge, edge.ts). */
  create(settings: AdapterSettings): Promise<Provider>;
  /** A model run in this process: no wire, so no edge to convert what goes to it. */
  inProcess?: true;
  /** The request fields for a thinking level, or the notice why there are none. */
  thinking: ThinkingPlanner;
  /** The model ids the endpoint offers, sorted; throws ModelListError (list-models.ts). */
  listModels(settings: AdapterSettings, signal: AbortSignal): Promise<string[]>;
  rules: WireRules;
  /** A server of one's own that speaks it (llama.cpp, Ollama) may be asked its context window (context-window.ts). */
  asksServerWindow?: true;
  /** Why a `--thinking` budget cannot work, said before the first call (exit 2); undefined when it can. */
  budgetProblem?(budget: number, model: string, maxTokens?: number): string | undefined;
  /** It runs config.json's `webSearch` on the server. */
  takesWebSearch?: true;
  /**
   * The API can keep the conversation on its side (Anthropic's message threads, OpenAI's stored
   * responses), so a request sends only what is new: on by default at `vendorHost` for the models
   * whose catalogue entry names this API under `serverState` (resolve-provider.ts decides; the
   * adapter obeys the settings' `serverState`).
   */
  serverState?: { vendorHost: string };
}

/** A wire API: one users can name with `--api`, spoken over HTTP. */
export interface WireApiRecord extends ApiRecord {
  /** The variable the key is read from when the API's own provider is chosen. */
  keyEnv: string;
  /** Its requests' headers: the key where the API reads it, and the settings' own (their listing's too). */
  headers(settings: Pick<AdapterSettings, "apiKey" | "headers">): Record<string, string>;
}

/** `^[a-zA-Z0-9_-]{1,64}$`: OpenAI's function names and Anthropic's tool names alike. */
const NAME_64 = { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 64 };

// Chat-completions servers take any id OpenAI takes; OpenAI caps it at 40 ("Invalid
// 'messages[2].tool_calls[0].id': string too long. Expected a string with maximum length 40",
// Portkey-AI/gateway#1062). Names: https://platform.openai.com/docs/api-reference/chat/create
// (tools.function.name "a-z, A-Z, 0-9, underscores and dashes, maximum length of 64").
const CHAT_RULES: WireRules = { toolCallId: { pattern: /^[\x21-\x7e]+$/, maxLength: 40 }, toolName: NAME_64 };

const listData = async (settings: AdapterSettings, signal: AbortSignal) => {
  const [{ listDataModels }, { signInHeaders }] = await Promise.all([
    import("./list-models.ts"),
    import("./sign-in/sign-in-headers.ts"),
  ]);
  return listDataModels(settings, { ...openAIHeaders(settings), ...(await signInHeaders(settings)) }, signal);
};

/** The wire APIs, by the names users give them, in the order help and errors list them. */
export const WIRE_APIS = {
  chat: {
    kind: CHAT_API,
    label: "OpenAI chat completions",
    keyEnv: "OPENAI_API_KEY",
    create: async (settings) => (await import("./openai-chat/openai-chat.ts")).createOpenAIChatProvider(settings),
    thinking: chatThinking,
    listModels: listData,
    headers: openAIHeaders,
    rules: CHAT_RULES,
    asksServerWindow: true,
  },
  responses: {
    kind: RESPONSES_API,
    label: "OpenAI Responses",
    keyEnv: "OPENAI_API_KEY",
    create: async (settings) =>
      (await import("./openai-responses/openai-responses.ts")).createOpenAIResponsesProvider(settings),
    thinking: responsesThinking,
    listModels: listData,
    headers: openAIHeaders,
    rules: { toolCallId: { pattern: /^[\x21-\x7e]+$/, maxLength: 64 }, toolName: NAME_64 },
    asksServerWindow: true,
    // Stored responses continued by `previous_response_id`; the models are the catalogue's.
    serverState: { vendorHost: "api.openai.com" },
  },
  anthropic: {
    kind: ANTHROPIC_API,
    label: "Anthropic Messages",
    keyEnv: "ANTHROPIC_API_KEY",
    create: async (settings) => (await import("./anthropic/anthropic-messages.ts")).createAnthropicProvider(settings),
    thinking: anthropicThinking,
    listModels: async (settings, signal) =>
      (await import("./anthropic/anthropic-messages.ts")).listAnthropicModels(settings, signal),
    headers: anthropicHeaders,
    // "messages.1.content.1.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
    // (CommandCodeAI/command-code#323, RooCodeInc/Roo-Code#10649); names "tools.7.custom.name: String
    // should match pattern '^[a-zA-Z0-9_-]{1,64}$'" (apify/tester-mcp-client#11); images at most 5 MB
    // each: https://docs.claude.com/en/docs/build-with-claude/vision#faq
    rules: {
      toolCallId: { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 64 },
      toolName: NAME_64,
      maxImageBytes: 5 * 1024 * 1024,
    },
    budgetProblem: anthropicBudgetProblem,
    takesWebSearch: true,
    // Message threads (beta message-threads-2026-08-12); the models are the catalogue's.
    serverState: { vendorHost: "api.anthropic.com" },
  },
  gemini: {
    kind: GEMINI_API,
    label: "Gemini generateContent",
    keyEnv: "GEMINI_API_KEY",
    create: async (settings) => (await import("./gemini/gemini.ts")).createGeminiProvider(settings),
    thinking: geminiThinking,
    listModels: async (settings, signal) => (await import("./gemini/gemini.ts")).listGeminiModels(settings, signal),
    headers: geminiHeaders,
    // Calls pair with their responses by order natively; ids are not sent. Names: "a-z, A-Z, 0-9, or
    // contain underscores, colons, dots, and dashes, with a maximum length of 64"
    // (https://ai.google.dev/api/caching#FunctionDeclaration); inline data at most 20 MB per request
    // (https://ai.google.dev/gemini-api/docs/image-understanding).
    rules: {
      toolCallId: { pattern: /^[\x21-\x7e]+$/, maxLength: 64 },
      toolName: { pattern: /^[a-zA-Z_][a-zA-Z0-9_.:-]*$/, maxLength: 64 },
      maxImageBytes: 20 * 1024 * 1024,
      takesOpenShapes: true,
    },
  },
} as const satisfies Record<string, WireApiRecord>;

/** `--provider local`: no wire API at all, a GGUF model run in-process (local-llama.ts). */
const LOCAL_API = {
  kind: "local",
  label: "a model run in-process",
  create: async (settings) => (await import("./local/local-llama.ts")).createLocalProvider(settings),
  inProcess: true,
  thinking: (target, level) => leftOut(target, level, "the local provider has no thinking control"),
  // The models already downloaded, as paths --model takes.
  listModels: async (settings) =>
    (await import("./local/local-download.ts")).listDownloadedModels(settings.modelsDir ?? ""),
  // Never applied (no edge), as chat completions' for whoever asks.
  rules: CHAT_RULES,
} as const satisfies ApiRecord;

/** A wire API's user-facing name. */
export type WireApiName = keyof typeof WIRE_APIS;

/** The kinds of the wire APIs (the `api` messages and settings carry). */
export type WireKind = (typeof WIRE_APIS)[WireApiName]["kind"];

/** Every API's kind: the wire APIs', and `local` for the model run in-process. */
export type ApiKind = WireKind | typeof LOCAL_API.kind;

/** The names, in the order help and errors list them. */
export const WIRE_API_NAMES = Object.keys(WIRE_APIS) as [WireApiName, ...WireApiName[]];

const RECORDS: readonly ApiRecord[] = [...Object.values(WIRE_APIS), LOCAL_API];

/** The record of an API kind; throws for a kind no record has (a bug: kinds are checked where they are read). */
export function apiRecord(kind: ApiKind): ApiRecord {
  const record = RECORDS.find((candidate) => candidate.kind === kind);
  if (!record) throw new Error(`no wire API record for "${kind}"`);
  return record;
}

/** The kind a user's name stands for (`chat` is `openai`). */
export function wireKind(name: WireApiName): WireKind {
  return WIRE_APIS[name].kind;
}

/**
 * The words config.json's `api` takes: the names, and the kinds that differ from them (`openai`,
 * chat's kind, was its name before `chat`, and older files still say it).
 */
export const CONFIG_API_WORDS = [
  ...WIRE_API_NAMES,
  ...Object.values(WIRE_APIS)
    .map((api) => api.kind)
    .filter((kind) => !(WIRE_API_NAMES as string[]).includes(kind)),
] as [string, ...string[]];

/** The kind a word of CONFIG_API_WORDS stands for. */
export function kindOfConfigWord(word: string): WireKind {
  const name = WIRE_API_NAMES.find((candidate) => candidate === word || WIRE_APIS[candidate].kind === word);
  if (!name) throw new Error(`"${word}" names no wire API`);
  return WIRE_APIS[name].kind;
}

/** `chat (OpenAI chat completions), responses (OpenAI Responses), ...`: the names as help lists them. */
export function describeWireApis(): string {
  return WIRE_API_NAMES.map((name) => `${name} (${WIRE_APIS[name].label})`).join(", ");
}

/** `"chat", "responses", ...`: the names as an error lists them. */
export function quotedWireApiNames(): string {
  return WIRE_API_NAMES.map((name) => `"${name}"`).join(", ");
}

/** Whether a stored value is an API kind this version speaks. */
export function isApiKind(value: unknown): value is ApiKind {
  return RECORDS.some((record) => record.kind === value);
}

/** The name users give a wire API (`openai` is `chat`), to pass it on as a flag; none for `local`. */
export function wireApiName(kind: ApiKind): WireApiName | undefined {
  return WIRE_API_NAMES.find((name) => WIRE_APIS[name].kind === kind);
}

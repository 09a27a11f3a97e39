// The wire APIs, by the names users give them: one record each (name, label, key variable), from
// which `--help`, the `--api` error and config.json's error are derived. A leaf module: the flag
// table and config.json read it without loading any adapter. What runs an API is switched over its
// kind, exhaustively, so the compiler names every place a new one needs: its adapter (ADAPTERS in
// create-provider.ts), its thinking fields (thinking.ts), its model listing (list-models.ts) and its
// headers (request-headers.ts). Decision: those stay beside their kin rather than in this record,
// which would then load every adapter at start-up or import them in a circle. A new wire API is
// its request, stream and adapter files, a record here, and the cases the compiler asks for.

/**
 * The wire APIs we speak: `openai` is chat completions, `responses` OpenAI's Responses API,
 * `gemini` Google's generateContent; `local` is no wire at all: a GGUF model run in-process.
 */
export type ApiKind = WireKind | "local";

/** What users see of one wire API. */
export interface WireApiRecord {
  kind: string;
  /** What it is, in `--help` and errors. */
  label: string;
  /** The variable the key is read from when the API's own provider is chosen. */
  keyEnv: string;
}

export const WIRE_APIS = {
  chat: { kind: "openai", label: "OpenAI chat completions", keyEnv: "OPENAI_API_KEY" },
  responses: { kind: "responses", label: "OpenAI Responses", keyEnv: "OPENAI_API_KEY" },
  anthropic: { kind: "anthropic", label: "Anthropic Messages", keyEnv: "ANTHROPIC_API_KEY" },
  gemini: { kind: "gemini", label: "Gemini generateContent", keyEnv: "GEMINI_API_KEY" },
} as const satisfies Record<string, WireApiRecord>;

/** A wire API's user-facing name. */
export type WireApiName = keyof typeof WIRE_APIS;

/** The kinds of the wire APIs (the `api` messages and settings carry). */
export type WireKind = (typeof WIRE_APIS)[WireApiName]["kind"];

/** The names, in the order help and errors list them. */
export const WIRE_API_NAMES = Object.keys(WIRE_APIS) as [WireApiName, ...WireApiName[]];

/** The kind a user's name stands for (`chat` is `openai`). */
export function wireKind(name: WireApiName): WireKind {
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

/** Whether a stored value is a wire API kind this version speaks. */
export function isApiKind(value: unknown): value is ApiKind {
  return value === "local" || Object.values(WIRE_APIS).some((api) => api.kind === value);
}

/** The name users give a wire API (`openai` is `chat`), to pass it on as a flag; none for `local`. */
export function wireApiName(kind: ApiKind): WireApiName | undefined {
  return WIRE_API_NAMES.find((name) => WIRE_APIS[name].kind === kind);
}

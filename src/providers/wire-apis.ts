// The wire APIs, by the names users give them. A leaf module: the flag table and config.json
// read it without loading any adapter.

/**
 * The wire APIs we speak: `openai` is chat completions, `responses` OpenAI's Responses API;
 * `local` is no wire at all: a GGUF model run in-process.
 */
export type ApiKind = "openai" | "responses" | "anthropic" | "local";

/** The wire APIs as users name them (`--api`, config `api`), and the kind each one is. */
export const WIRE_APIS = { chat: "openai", responses: "responses", anthropic: "anthropic" } as const satisfies Record<
  string,
  ApiKind
>;

/** A wire API's user-facing name. */
export type WireApiName = keyof typeof WIRE_APIS;

/** The names, in the order help and errors list them. */
export const WIRE_API_NAMES = Object.keys(WIRE_APIS) as [WireApiName, ...WireApiName[]];

/** Whether a stored value is a wire API kind this version speaks. */
export function isApiKind(value: unknown): value is ApiKind {
  return value === "local" || Object.values(WIRE_APIS).some((kind) => kind === value);
}

/** The name users give a wire API (`openai` is `chat`), to pass it on as a flag; none for `local`. */
export function wireApiName(kind: ApiKind): WireApiName | undefined {
  return WIRE_API_NAMES.find((name) => WIRE_APIS[name] === kind);
}

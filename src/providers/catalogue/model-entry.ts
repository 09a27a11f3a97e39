// What one entry of the model catalogue says (model-catalogue.ts finds and combines them). Types
// only, so the data files beside it and the catalogue import them without a cycle.

/** USD per million tokens. `input` is uncached input; cache reads and writes have their own rates. */
export interface Prices {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * What thinking a model takes. `efforts`: the words it takes (OpenAI's reasoning efforts, Gemini 3's
 * levels); without them it takes a token budget (Anthropic, Gemini 2.5). `off`: what `--thinking
 * off` is sent as (`"omit"`: nothing is sent, the model does not think unless asked), or null when
 * it cannot stop thinking.
 */
export interface ThinkingSpec {
  efforts?: readonly string[];
  off: string | number | null;
}

/** What a server serving this model refuses beyond its API's rules (applied at the edge). */
interface ModelRules {
  /**
   * A user message may not follow tool results directly: an assistant message goes between
   * (Mistral: "Unexpected role 'user' after role 'tool'", code 3230).
   */
  assistantAfterTools?: true;
  /**
   * Tool schemas go in Gemini's `parameters` Schema, with no free-form object or untyped array at
   * any depth (open-shapes.ts), on every API but Google's own: a router or proxy in front of Gemini
   * passes its refusal on ("* properties[ops].items: missing field.").
   */
  geminiSchema?: true;
}

/** A short name for the model (`sonnet`), and a variable whose value names another id for it (a gateway's). */
interface ModelAlias {
  name: string;
  variable?: string;
}

/** One model, or a family of them, as harness knows it. Every fact is optional; `source` is not. */
export interface ModelEntry {
  /** The id as its vendor names it: what `harness models --known` and the chat's `/model` show. */
  id: string;
  /**
   * The ids it stands for, matched lower case against the id with and without its router prefix;
   * absent: the id itself and its snapshots (`-2025...`, `:8b`, `@...`).
   */
  match?: RegExp;
  /** The wire API its vendor serves it on (`openai` is chat completions): shown, and where its aliases apply. */
  api?: string;
  /** The provider preset whose entry this is: it applies when that provider is in use, and `/model` lists it. */
  provider?: string;
  /** Tokens the context holds. */
  contextWindow?: number;
  /** The most output tokens one reply may ask for. */
  maxOutput?: number;
  /** The thinking it takes; false: none (a thinking field is refused or ignored). */
  thinking?: ThinkingSpec | false;
  /** Whether it reads images; false: they go as a line of text saying so. */
  images?: boolean;
  prices?: Prices;
  rules?: ModelRules;
  aliases?: readonly ModelAlias[];
  /**
   * The wire APIs (named as `api` names them) that can keep this model's conversation on the server, so
   * a request sends only what is new (providers.md, "Server-side conversation state"); `[]`: none.
   */
  serverState?: readonly string[];
  /** Where the facts come from: a documentation URL, or `config.json`. */
  source: string;
}

/** The facts an entry may state. */
export type ModelFacts = Omit<ModelEntry, "id" | "match" | "provider" | "source" | "api" | "aliases">;

// `$HARNESS_HOME/config.json`: the one reader of the file, and its schema. This module owns the
// provider, model and price keys; `mcpServers` is handed as read to mcp-servers.ts (whose broken
// entries are reported and skipped), and any other key is an error. The words of the provider
// keys (wire API names, thinking levels, the smallest context window) are the providers layer's,
// hence settings' one edge to it; what needs the built-in providers (a custom one must name its
// API and URL) is checked by wiring/config-file.ts.
import { readFileSync } from "node:fs";
import { z } from "zod";
import type { ModelEntry } from "../providers/catalogue/model-entry.ts";
import { MIN_CONTEXT_WINDOW } from "../providers/model-info.ts";
import { THINKING_WORDS } from "../providers/thinking-levels.ts";
import { type ApiKind, CONFIG_API_WORDS, kindOfConfigWord, quotedWireApiNames } from "../providers/wire-apis.ts";
import { describeIssue } from "../shared/describe-issue.ts";
import { mcpServersSchema } from "./mcp-servers.ts";
import { SettingsError } from "./settings-file.ts";

const tokenCount = z.number().int().positive();
const contextWindow = z.number().int().min(MIN_CONTEXT_WINDOW);
/** A wire API by its user-facing name; `openai`, the older name of `chat`, still reads (wire-apis.ts). */
const WireApiSchema = z
  .enum(CONFIG_API_WORDS, { error: `expected one of ${quotedWireApiNames()}` })
  .transform((word): ApiKind => kindOfConfigWord(word));
const perMillion = z.number().nonnegative();

/** USD per million tokens; cache rates default to the input rate (no discount known). */
const PricesSchema = z
  .strictObject({
    input: perMillion,
    output: perMillion,
    cacheRead: perMillion.optional(),
    cacheWrite: perMillion.optional(),
  })
  .transform((prices) => ({
    ...prices,
    cacheRead: prices.cacheRead ?? prices.input,
    cacheWrite: prices.cacheWrite ?? prices.input,
  }));

/** What may differ per model of one provider. */
const ModelEntrySchema = z.strictObject({
  contextWindow: contextWindow.optional(),
  maxTokens: tokenCount.optional(),
  prices: PricesSchema.optional(),
});

/**
 * A model catalogue entry of the user's (top-level `models`): what it states wins over the built-in
 * entries for that model id and its snapshots, on every provider (model-catalogue.ts). `thinking`:
 * false for none, else the efforts it takes (none: a budget) and what `off` is sent as (null: it
 * cannot stop thinking).
 */
const CatalogueEntrySchema = z.strictObject({
  contextWindow: contextWindow.optional(),
  maxOutput: tokenCount.optional(),
  images: z.boolean().optional(),
  prices: PricesSchema.optional(),
  thinking: z
    .union([
      z.literal(false),
      z.strictObject({
        efforts: z.array(z.string().min(1)).min(1).optional(),
        off: z.union([z.string().min(1), z.number().int().nonnegative(), z.null()]),
      }),
    ])
    .optional(),
  /** A user message may not follow tool results directly (Mistral's rule). */
  assistantAfterTools: z.literal(true).optional(),
  /** Tool schemas in Gemini's Schema, open shapes closed (a Gemini model under a name of one's own). */
  geminiSchema: z.literal(true).optional(),
  /** The wire APIs that can keep its conversation on the server (a gateway's name for a model that can). */
  serverState: z.array(z.enum(["anthropic", "responses"])).optional(),
});

/** config.json's `models` as catalogue entries, in the order written. */
export function configuredModels(config: HarnessConfig): ModelEntry[] {
  return Object.entries(config.models ?? {}).map(([id, { assistantAfterTools, geminiSchema, ...facts }]) => ({
    id,
    ...facts,
    ...(assistantAfterTools || geminiSchema
      ? {
          rules: { ...(assistantAfterTools ? { assistantAfterTools } : {}), ...(geminiSchema ? { geminiSchema } : {}) },
        }
      : {}),
    source: "config.json",
  }));
}

/**
 * A provider: a custom one (any name; `api` and `baseUrl` required) or a built-in one whose
 * fields it overrides. Entries are strict, so a typo such as `baseURL` is an error, not a silent no-op.
 */
const ProviderEntrySchema = z.strictObject({
  api: WireApiSchema.optional(),
  baseUrl: z.url({ protocol: /^https?$/, error: "expected an http(s) URL" }).optional(),
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected the name of an environment variable, such as MYLLM_API_KEY")
    .optional(),
  headers: z.record(z.string(), z.string()).optional(),
  /** The model used when none is named elsewhere. */
  model: z.string().min(1).optional(),
  contextWindow: contextWindow.optional(),
  maxTokens: tokenCount.optional(),
  prices: PricesSchema.optional(),
  /** The server is on this machine or network (true) or not (false): whether to ask it its context window. */
  local: z.boolean().optional(),
  models: z.record(z.string(), ModelEntrySchema).optional(),
  /** `--provider local` only: threads llama.cpp computes on (HARNESS_LOCAL_THREADS wins); default the math cores. */
  threads: z.number().int().positive().max(256).optional(),
  /**
   * Keep the conversation on the API's side and send only what is new (Anthropic's message
   * threads, OpenAI's stored responses): default on at the vendor's own endpoint for models that support it; `true` turns it
   * on for a gateway that forwards it, `false` off. HARNESS_SERVER_STATE wins.
   */
  serverState: z.boolean().optional(),
  /** The account keeps no data: no conversation state is kept on the API's side, whatever asks for it. */
  zeroDataRetention: z.boolean().optional(),
});

/**
 * The whole file. Unknown top-level keys are errors too, so a typo (`"provders"`) is caught rather
 * than silently dropping what it held; a key another module reads is named here and checked there.
 */
const ConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  provider: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  /** The wire API of the top-level provider (like `model`, it belongs to it). */
  api: WireApiSchema.optional(),
  /** Seconds one model call may take, and the server may stay silent (providers/call-limits.ts). */
  requestTimeout: z.number().positive().optional(),
  idleTimeout: z.number().positive().optional(),
  /** Most bytes of one model reply. */
  maxReplyBytes: z.number().int().positive().optional(),
  /** How much the model thinks, as `--thinking` takes it (which wins). */
  thinking: z
    .union([z.enum(THINKING_WORDS), tokenCount], {
      error: 'expected "off", "low", "medium", "high" or a number of tokens',
    })
    .optional(),
  /**
   * Anthropic's server-side web search (the API searches and bills per search; its result blocks
   * go back unchanged). `true`, or `{ "maxUses": n }` searches per request (default 5). Other APIs
   * have no such tool and ignore it.
   */
  webSearch: z
    .union([z.boolean(), z.strictObject({ maxUses: z.number().int().positive().optional() })], {
      error: 'expected true, false or { "maxUses": <number> }',
    })
    .optional(),
  /** Every provider's account keeps no data (as a provider's own `zeroDataRetention`). */
  zeroDataRetention: z.boolean().optional(),
  /** Levels of subagents below the main agent (src/wiring/subagents.ts): 1, the default, lets children start none; 0 removes the task tool. */
  maxSubagentDepth: z.number().int().nonnegative().max(5).optional(),
  /** Models to go on with when a call fails for overload, rate limit, quota or an outage: `[provider:]model` (`--fallback-model`). */
  fallbackModels: z.array(z.string().min(1), { error: 'expected a list of "[provider:]model" strings' }).optional(),
  /** Model catalogue entries of the user's, by model id (model-catalogue.ts). */
  models: z.record(z.string().min(1), CatalogueEntrySchema).optional(),
  providers: z
    .record(z.string(), ProviderEntrySchema, { error: "expected an object of provider name → settings" })
    .optional(),
  /** Checked by mcp-servers.ts, whose broken entries are reported and skipped. */
  mcpServers: z.unknown().optional(),
});

/** The parsed config.json: the keys this module owns, plus any others, untouched. */
export type HarnessConfig = z.output<typeof ConfigSchema>;

/** The JSON Schemas of config.json and of a project's .mcp.json, for editors (scripts/write-settings-schema.ts writes them to docs/). */
export function configJsonSchemas(): { config: Record<string, unknown>; mcp: Record<string, unknown> } {
  const options = { target: "draft-2020-12", io: "input", unrepresentable: "any" } as const;
  return {
    config: {
      title: "harness config.json",
      ...z.toJSONSchema(ConfigSchema.extend({ mcpServers: mcpServersSchema.optional() }), options),
    },
    mcp: {
      title: ".mcp.json (Claude Code's format, as harness reads it)",
      ...z.toJSONSchema(z.object({ mcpServers: mcpServersSchema.optional() }), options),
    },
  };
}

/**
 * Reads and validates a config.json; a missing file is an empty config. A broken one is a
 * SettingsError naming the file and the field (`.../config.json: providers.myllm.api: expected ...`).
 */
export function readConfigFile(path: string): HarnessConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new SettingsError(`${path}: cannot read it: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SettingsError(`${path}: not valid JSON: ${(error as Error).message}`);
  }
  const parsed = ConfigSchema.safeParse(json);
  if (!parsed.success)
    throw new SettingsError(`${path}: ${describeIssue(parsed.error.issues[0], Object.keys(ConfigSchema.shape))}`);
  return parsed.data;
}

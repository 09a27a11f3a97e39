// `$HARNESS_HOME/config.json`: its schema and loading. This module owns the provider, model and
// price keys; other keys (`mcpServers`, ...) belong to other modules and pass through untouched.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError, PRESETS, stateDir } from "./config.ts";
import { WIRE_API_NAMES, WIRE_APIS, type ApiKind } from "./providers/wire-apis.ts";

const tokenCount = z.number().int().positive();
/** A wire API by its user-facing name; `openai`, the older name of `chat`, still reads. */
const WireApiSchema = z
  .enum([...WIRE_API_NAMES, "openai"], { error: 'expected "chat", "responses" or "anthropic"' })
  .transform((name): ApiKind => (name === "openai" ? "openai" : WIRE_APIS[name]));
const perMillion = z.number().nonnegative();

/** USD per million tokens; cache rates default to the input rate (no discount known). */
const PricesSchema = z
  .strictObject({ input: perMillion, output: perMillion, cacheRead: perMillion.optional(), cacheWrite: perMillion.optional() })
  .transform((prices) => ({ ...prices, cacheRead: prices.cacheRead ?? prices.input, cacheWrite: prices.cacheWrite ?? prices.input }));

/** What may differ per model of one provider. */
const ModelEntrySchema = z.strictObject({
  contextWindow: tokenCount.optional(),
  maxTokens: tokenCount.optional(),
  prices: PricesSchema.optional(),
});

/**
 * A provider: a custom one (any name; `api` and `baseUrl` required) or a built-in one whose
 * fields it overrides. Entries are strict, so a typo such as `baseURL` is an error, not a silent no-op.
 */
const ProviderEntrySchema = z.strictObject({
  api: WireApiSchema.optional(),
  baseUrl: z.url({ protocol: /^https?$/, error: "expected an http(s) URL" }).optional(),
  apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected the name of an environment variable, such as MYLLM_API_KEY").optional(),
  headers: z.record(z.string(), z.string()).optional(),
  /** The model used when none is named elsewhere. */
  model: z.string().min(1).optional(),
  contextWindow: tokenCount.optional(),
  maxTokens: tokenCount.optional(),
  prices: PricesSchema.optional(),
  models: z.record(z.string(), ModelEntrySchema).optional(),
});

const ConfigSchema = z.looseObject({
  provider: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  /** The wire API of the top-level provider (like `model`, it belongs to it). */
  api: WireApiSchema.optional(),
  /** Seconds one model call may take, and the server may stay silent (providers/call-limits.ts). */
  requestTimeout: z.number().positive().optional(),
  idleTimeout: z.number().positive().optional(),
  /** Most bytes of one model reply. */
  maxReplyBytes: z.number().int().positive().optional(),
  providers: z.record(z.string(), ProviderEntrySchema, { error: "expected an object of provider name → settings" }).optional(),
});

/** The parsed config.json: the keys this module owns, plus any others, untouched. */
export type HarnessConfig = z.output<typeof ConfigSchema>;

export function configPath(env: NodeJS.ProcessEnv): string {
  return join(stateDir(env), "config.json");
}

/**
 * Reads and validates config.json; a missing file is an empty config. A broken one is a usage
 * error naming the file and the field (`.../config.json: providers.myllm.api: expected ...`).
 */
export function loadConfigFile(env: NodeJS.ProcessEnv): HarnessConfig {
  const path = configPath(env);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new ConfigError(`${path}: cannot read it: ${(error as Error).message}`, { isUsage: true });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${path}: not valid JSON: ${(error as Error).message}`, { isUsage: true });
  }
  const parsed = ConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${path}: ${describeIssue(issue)}`, { isUsage: true });
  }
  for (const [name, entry] of Object.entries(parsed.data.providers ?? {})) {
    if (PRESETS[name]) continue;
    for (const field of ["api", "baseUrl"] as const) {
      if (!entry[field]) throw new ConfigError(`${path}: providers.${name}.${field}: required for a custom provider`, { isUsage: true });
    }
  }
  return parsed.data;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = formatPath(issue.path);
  const message = issue.code === "unrecognized_keys" ? `unknown ${issue.keys.length > 1 ? "keys" : "key"} ${issue.keys.map((key) => `"${key}"`).join(", ")}` : issue.message.replace(/^Invalid input: /, "");
  return where ? `${where}: ${message}` : message;
}

/** `providers.myllm.models["gpt-4.1"].prices`: dots for plain names, brackets otherwise. */
function formatPath(path: PropertyKey[]): string {
  let text = "";
  for (const key of path) {
    if (typeof key === "number") text += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_$][\w$-]*$/.test(key)) text += text ? `.${key}` : key;
    else text += `[${JSON.stringify(String(key))}]`;
  }
  return text;
}

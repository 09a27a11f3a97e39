// The variables users of the vendors' own tools already have, read as those tools read them, for
// the built-in provider of the same vendor. *Decision*: harness's own settings win over them
// (`--base-url`, `HARNESS_BASE_URL`, config.json's `providers.<name>.baseUrl`; `HARNESS_API_KEY`),
// as they are harness's and these are shared with other tools; they win over the presets, so a
// gateway user's key goes to the gateway, never to the vendor's own host.
import { ConfigError } from "./defaults.ts";

/** Where a vendor's tool reads its server from, and how its value becomes our base URL. */
interface BaseUrlVariable {
  name: string;
  /** The base URL harness appends its paths to (`.../v1` for chat completions); throws ConfigError for a value that is none. */
  toBaseUrl(value: string): string;
}

interface VendorEnvironment {
  baseUrl?: BaseUrlVariable;
  /** Key variables read after the preset's own, in this order (the first set one is used). */
  moreKeys?: string[];
  /** A token sent as `Authorization: Bearer` when no key is set (a gateway's own credential). */
  bearerToken?: string;
}

const VENDORS: Record<string, VendorEnvironment> = {
  // Claude Code and the Anthropic SDKs: the URL without `/v1` (they append `/v1/messages`, as we do).
  // https://docs.claude.com/en/docs/claude-code/settings#environment-variables,
  // https://github.com/anthropics/anthropic-sdk-typescript (client.ts: `readEnv('ANTHROPIC_BASE_URL')`).
  // ANTHROPIC_AUTH_TOKEN is what LLM gateways have Claude Code users set, sent as `Authorization:
  // Bearer` (https://docs.claude.com/en/docs/claude-code/llm-gateway); ANTHROPIC_API_KEY wins, as
  // in Claude Code, and with a token and no key no `x-api-key` goes out (anthropic-request.ts).
  anthropic: {
    baseUrl: { name: "ANTHROPIC_BASE_URL", toBaseUrl: (value) => httpUrl("ANTHROPIC_BASE_URL", value) },
    bearerToken: "ANTHROPIC_AUTH_TOKEN",
  },
  // The OpenAI SDKs and Codex: the URL with `/v1` (they append `/chat/completions`, `/responses`).
  // https://github.com/openai/openai-node (client.ts: `readEnv('OPENAI_BASE_URL')`), codex-rs
  // model_provider_info.rs (the built-in `openai` provider reads OPENAI_BASE_URL).
  openai: { baseUrl: { name: "OPENAI_BASE_URL", toBaseUrl: (value) => httpUrl("OPENAI_BASE_URL", value) } },
  // Gemini CLI: GEMINI_API_KEY; Google's Gen AI SDKs (which Gemini CLI is built on) also take
  // GOOGLE_API_KEY (https://ai.google.dev/gemini-api/docs/api-key#set-api-env-var). *Decision*:
  // GEMINI_API_KEY first, as Gemini CLI and our own docs name it; the SDKs prefer GOOGLE_API_KEY
  // when both are set, so a notice says which one is used when they differ. GOOGLE_GEMINI_BASE_URL is
  // Gemini CLI's gateway setting, a root the SDK appends `/v1beta/models/...` to.
  gemini: {
    moreKeys: ["GOOGLE_API_KEY"],
    baseUrl: {
      name: "GOOGLE_GEMINI_BASE_URL",
      toBaseUrl: (value) => `${httpUrl("GOOGLE_GEMINI_BASE_URL", value).replace(/\/+$/, "")}/v1beta`,
    },
  },
  ollama: { baseUrl: { name: "OLLAMA_HOST", toBaseUrl: ollamaBaseUrl } },
};

/** The base URL a vendor variable sets for the built-in `provider`, with the variable's name; undefined when unset. */
export function vendorBaseUrl(provider: string, env: NodeJS.ProcessEnv): { url: string; variable: string } | undefined {
  const variable = VENDORS[provider]?.baseUrl;
  const value = variable ? env[variable.name]?.trim() : undefined;
  // Empty is unset, as the SDKs read it (`readEnv` trims; `||` falls back to the default).
  if (!variable || !value) return undefined;
  return { url: variable.toBaseUrl(value).replace(/\/+$/, ""), variable: variable.name };
}

/** The further key variables of the built-in `provider`, in the order they are read. */
export function moreKeyVariables(provider: string): readonly string[] {
  return VENDORS[provider]?.moreKeys ?? [];
}

/** The bearer-token variable of the built-in `provider` and its value, when set. */
export function vendorBearerToken(
  provider: string,
  env: NodeJS.ProcessEnv,
): { token: string; variable: string } | undefined {
  const variable = VENDORS[provider]?.bearerToken;
  const token = variable ? env[variable]?.trim() : undefined;
  return variable && token ? { token, variable } : undefined;
}

function httpUrl(variable: string, value: string): string {
  if (URL.canParse(value) && /^https?:$/.test(new URL(value).protocol)) return value;
  throw new ConfigError(`${variable} takes an http:// or https:// URL (got "${value}")`, { isUsage: true });
}

/**
 * OLLAMA_HOST as Ollama's own CLI reads it (ollama/ollama envconfig/config.go, `Host()`): quotes
 * and spaces trimmed; no scheme means http; `host` alone gets port 11434 (80 or 443 when a scheme
 * is given); an empty host is 127.0.0.1; a path is kept. So `0.0.0.0`, `localhost:8080`,
 * `http://box:11434/` and `https://ollama.example.com` all work. Ollama falls back to the default
 * port on a bad one; harness says so instead (a bad value is an error, not a guess).
 */
function ollamaBaseUrl(raw: string): string {
  const value = raw.replace(/^["' ]+|["' ]+$/g, "");
  const schemeEnd = value.indexOf("://");
  const scheme = schemeEnd < 0 ? "http" : value.slice(0, schemeEnd);
  const rest = schemeEnd < 0 ? value : value.slice(schemeEnd + 3);
  const defaultPort = schemeEnd < 0 ? "11434" : scheme === "https" ? "443" : "80";
  const slash = rest.indexOf("/");
  const hostPort = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? "" : rest.slice(slash).replace(/\/+$/, "");
  // `[::1]:11434`, `host:11434`, `::1` (an IPv6 address without a port), `host`.
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(hostPort);
  const host = match ? match[1] : hostPort.includes(":") ? `[${hostPort}]` : hostPort;
  const port = match?.[2] ?? defaultPort;
  const url = `${scheme}://${host || "127.0.0.1"}:${port}${path}`;
  if ((scheme !== "http" && scheme !== "https") || !URL.canParse(url) || port === "" || Number(port) > 65535)
    throw new ConfigError(`OLLAMA_HOST takes host, host:port or an http(s) URL, as Ollama reads it (got "${raw}")`, {
      isUsage: true,
    });
  return `${url}/v1`;
}

// `harness models`: the models the configured endpoint offers, one id per line on stdout.
import { parseArgs } from "node:util";
import { assertNever } from "../core/messages.ts";
import { loadConfigFile } from "../config-file.ts";
import { ConfigError } from "../config.ts";
import { resolveProvider } from "../resolve-provider.ts";
import type { ProviderSettings } from "../providers/index.ts";
import { listDownloadedModels } from "../providers/local-download.ts";
import { ANTHROPIC_VERSION } from "../providers/request-headers.ts";

const HELP = `Usage: harness models [--provider <name>] [--base-url <url>]

Lists the models the endpoint offers (GET {base}/models, or /v1/models for Anthropic), one per line.
The provider, base URL and key are chosen as for a run: flags, environment, config.json, defaults.
`;

const OPTIONS = {
  provider: { type: "string" },
  model: { type: "string" },
  "base-url": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** A listing that takes longer than this has failed. */
const LIST_TIMEOUT_MS = 15_000;
/** The Messages API version header the Models endpoint wants. */
/** Anthropic pages its list; this many pages of its largest size is far more than exist. */
const ANTHROPIC_PAGE_SIZE = 1000;
const MAX_PAGES = 10;
const ANY_MODEL = "(any)";

export async function run(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true }));
  } catch (error) {
    process.stderr.write(`harness models: ${(error as Error).message}\nTry 'harness models --help'.\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  try {
    // Listing needs no model; the placeholder keeps a custom provider without one from being an error.
    const choice = { provider: values.provider, model: values.model ?? ANY_MODEL, baseUrl: values["base-url"] };
    const settings = resolveProvider(choice, process.env, loadConfigFile(process.env));
    const ids = await listModels(settings, AbortSignal.timeout(LIST_TIMEOUT_MS));
    process.stdout.write(ids.length > 0 ? `${ids.join("\n")}\n` : "");
    if (ids.length === 0) process.stderr.write(`harness models: ${settings.name} lists no models\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigError || error instanceof ListError)) throw error;
    process.stderr.write(`harness models: ${error.message}\n`);
    return error instanceof ConfigError && error.isUsage ? 2 : 1;
  }
}

/** A listing that failed, with a message a user can act on. */
class ListError extends Error {}

/** The ids the endpoint offers, sorted. */
export async function listModels(settings: ProviderSettings, signal: AbortSignal): Promise<string[]> {
  switch (settings.api) {
    case "openai":
    case "responses": {
      const auth: Record<string, string> = settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {};
      const page = await getJson(`${settings.baseUrl}/models`, { ...auth, ...settings.headers }, settings, signal);
      return idsOf(page, settings).sort();
    }
    case "anthropic": {
      const headers = {
        "x-api-key": settings.apiKey ?? "",
        "anthropic-version": ANTHROPIC_VERSION,
        ...settings.headers,
      };
      const base = `${settings.baseUrl.replace(/\/v1$/, "")}/v1/models?limit=${ANTHROPIC_PAGE_SIZE}`;
      const ids: string[] = [];
      let after: string | undefined;
      for (let pages = 0; pages < MAX_PAGES; pages++) {
        const page = await getJson(
          after ? `${base}&after_id=${encodeURIComponent(after)}` : base,
          headers,
          settings,
          signal,
        );
        ids.push(...idsOf(page, settings));
        if (!(page as { has_more?: boolean }).has_more) break;
        after = (page as { last_id?: string }).last_id;
        if (!after) break;
      }
      return ids.sort();
    }
    case "local": // the models already downloaded, as paths --model takes
      return listDownloadedModels(settings.modelsDir ?? "");
    default:
      return assertNever(settings.api);
  }
}

async function getJson(
  url: string,
  headers: Record<string, string>,
  settings: ProviderSettings,
  signal: AbortSignal,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { headers, signal });
  } catch (error) {
    const reason = signal.aborted
      ? `no answer within ${LIST_TIMEOUT_MS / 1000} s`
      : String((error as Error).cause ?? (error as Error).message);
    throw new ListError(`cannot reach ${url}: ${reason}`);
  }
  if (response.status === 404 || response.status === 405) {
    throw new ListError(
      `${settings.name} at ${settings.baseUrl} does not list its models (GET ${url} answered ${response.status})`,
    );
  }
  if (response.status === 401 || response.status === 403) {
    const hint = settings.keyEnv ? `check ${settings.keyEnv} (or HARNESS_API_KEY)` : "check the key (HARNESS_API_KEY)";
    throw new ListError(`${settings.name} refused the request (HTTP ${response.status}): ${hint}`);
  }
  if (!response.ok)
    throw new ListError(`GET ${url} failed: HTTP ${response.status} ${(await response.text()).slice(0, 200)}`);
  try {
    return await response.json();
  } catch {
    throw new ListError(`GET ${url} did not answer JSON`);
  }
}

/** OpenAI, Anthropic, Ollama and llama.cpp all answer `{ data: [{ id }, ...] }`. */
function idsOf(page: unknown, settings: ProviderSettings): string[] {
  const data = (page as { data?: unknown } | null)?.data;
  if (!Array.isArray(data))
    throw new ListError(`${settings.name} answered the model list in an unknown shape (no "data" array)`);
  return data.map((entry) => (entry as { id?: unknown }).id).filter((id): id is string => typeof id === "string");
}

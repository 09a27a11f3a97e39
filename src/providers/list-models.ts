// The models an endpoint offers, from its model list (GET {base}/models; Anthropic: /v1/models),
// for `harness models` and the chat's `/model`.
import { ANTHROPIC_VERSION, geminiHeaders } from "./request-headers.ts";
import type { ProviderSettings } from "./index.ts";
import { listDownloadedModels } from "./local-download.ts";
import { fetchWithProxy } from "../core/proxy-fetch.ts";

/** A listing that takes longer than this has failed. */
export const LIST_TIMEOUT_MS = 15_000;
/** Anthropic pages its list; this many pages of its largest size is far more than exist. */
const ANTHROPIC_PAGE_SIZE = 1000;
const MAX_PAGES = 10;
/** Gemini's largest page of models. */
const GEMINI_PAGE_SIZE = 1000;

/** A listing that failed, with a message a user can act on. */
export class ModelListError extends Error {
  override name = "ModelListError";
}

/** The ids the endpoint offers, sorted; throws ModelListError. */
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
    case "gemini":
      return listGeminiModels(settings, signal);
    case "local": // the models already downloaded, as paths --model takes
      return listDownloadedModels(settings.modelsDir ?? "");
  }
}

/**
 * Gemini's list: `{ models: [{ name: "models/gemini-2.5-flash", supportedGenerationMethods }] }`,
 * paged by `nextPageToken`; only models that generate content are offered, without the prefix.
 */
async function listGeminiModels(settings: ProviderSettings, signal: AbortSignal): Promise<string[]> {
  const headers = geminiHeaders(settings);
  const ids: string[] = [];
  let token: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const url = `${settings.baseUrl}/models?pageSize=${GEMINI_PAGE_SIZE}${token ? `&pageToken=${encodeURIComponent(token)}` : ""}`;
    const page = (await getJson(url, headers, settings, signal)) as {
      models?: Array<{ name?: unknown; supportedGenerationMethods?: unknown }>;
      nextPageToken?: string;
    };
    if (!Array.isArray(page?.models))
      throw new ModelListError(`${settings.name} answered the model list in an unknown shape (no "models" array)`);
    for (const model of page.models) {
      const methods = Array.isArray(model.supportedGenerationMethods) ? model.supportedGenerationMethods : [];
      if (typeof model.name === "string" && (methods.length === 0 || methods.includes("generateContent")))
        ids.push(model.name.replace(/^models\//, ""));
    }
    token = page.nextPageToken;
    if (!token) break;
  }
  return ids.sort();
}

async function getJson(
  url: string,
  headers: Record<string, string>,
  settings: ProviderSettings,
  signal: AbortSignal,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetchWithProxy(url, { headers, signal });
  } catch (error) {
    const reason = signal.aborted
      ? `no answer within ${LIST_TIMEOUT_MS / 1000} s`
      : String((error as Error).cause ?? (error as Error).message);
    throw new ModelListError(`cannot reach ${url}: ${reason}`);
  }
  if (response.status === 404 || response.status === 405) {
    throw new ModelListError(
      `${settings.name} at ${settings.baseUrl} does not list its models (GET ${url} answered ${response.status})`,
    );
  }
  if (response.status === 401 || response.status === 403) {
    const hint = settings.keyEnv ? `check ${settings.keyEnv} (or HARNESS_API_KEY)` : "check the key (HARNESS_API_KEY)";
    throw new ModelListError(`${settings.name} refused the request (HTTP ${response.status}): ${hint}`);
  }
  if (!response.ok)
    throw new ModelListError(`GET ${url} failed: HTTP ${response.status} ${(await response.text()).slice(0, 200)}`);
  try {
    return await response.json();
  } catch {
    throw new ModelListError(`GET ${url} did not answer JSON`);
  }
}

/** OpenAI, Anthropic, Ollama and llama.cpp all answer `{ data: [{ id }, ...] }`. */
function idsOf(page: unknown, settings: ProviderSettings): string[] {
  const data = (page as { data?: unknown } | null)?.data;
  if (!Array.isArray(data))
    throw new ModelListError(`${settings.name} answered the model list in an unknown shape (no "data" array)`);
  return data.map((entry) => (entry as { id?: unknown }).id).filter((id): id is string => typeof id === "string");
}

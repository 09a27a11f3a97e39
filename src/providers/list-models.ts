// The models an endpoint offers, for `harness models` and the chat's `/model`: each API's record
// (wire-apis.ts) says how it lists them; these are the pieces the listings share.

import { fetchWithProxy } from "../shared/proxy-fetch.ts";
import type { AdapterSettings } from "./adapter-settings.ts";

/** A listing that takes longer than this has failed. */
export const LIST_TIMEOUT_MS = 15_000;
/** Lists that come in pages: this many pages of the largest size is far more than exist. */
export const MAX_PAGES = 10;

/** A listing that failed, with a message a user can act on. */
export class ModelListError extends Error {
  override name = "ModelListError";
}

/**
 * The ids of an endpoint that answers `GET {base}/models` with `{ data: [{ id }, ...] }` (OpenAI,
 * Ollama, llama.cpp), sorted. `headers` are the API's request headers (its record's), so the list
 * is asked for with the key and headers the requests carry.
 */
export async function listDataModels(
  settings: AdapterSettings,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<string[]> {
  return idsOf(await getJson(`${settings.baseUrl}/models`, headers, settings, signal), settings).sort();
}

/** GET `url` as JSON; each failure a ModelListError that says what to do. */
export async function getJson(
  url: string,
  headers: Record<string, string>,
  settings: AdapterSettings,
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
export function idsOf(page: unknown, settings: AdapterSettings): string[] {
  const data = (page as { data?: unknown } | null)?.data;
  if (!Array.isArray(data))
    throw new ModelListError(`${settings.name} answered the model list in an unknown shape (no "data" array)`);
  return data.map((entry) => (entry as { id?: unknown }).id).filter((id): id is string => typeof id === "string");
}

// Where a local model lives and how it gets there: a path to a .gguf file, or a reference
// (`hf:user/repo/file.gguf`, an http(s) URL) downloaded once into $HARNESS_HOME/models.
// Our own small downloader rather than node-llama-cpp's: it resumes with HTTP Range requests
// from a `.partial` file, reports progress to our own bar, and can be tested against a server
// on 127.0.0.1.
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { readdir, rename, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";
import { ProviderError } from "../../core/provider.ts";
import { formatBytes, formatDuration } from "../../shared/helpers.ts";
import { makePrivateFolderAsync, PRIVATE_FILE_MODE } from "../../shared/private-files.ts";
import { fetchWithProxy } from "../../shared/proxy-fetch.ts";

/** Where a model file is, and where to fetch it from when it is not there yet. */
export interface ModelSource {
  path: string;
  url?: string;
}

/** How far a download is; `total` is absent when the server does not say. */
export interface DownloadProgress {
  received: number;
  total?: number;
  /** Bytes that were already on disk from an earlier, interrupted download. */
  resumedFrom: number;
  bytesPerSecond: number;
}

const HF_PREFIX = "hf:";
const HF_BASE_URL = "https://huggingface.co";

/** Turns `--model` into a file path, plus the URL to download it from for a reference. */
export function resolveModelSource(model: string, modelsDir: string, cwd: string): ModelSource {
  if (model.startsWith(HF_PREFIX)) {
    const [user, repo, ...file] = model.slice(HF_PREFIX.length).split("/");
    if (!user || !repo || file.length === 0) {
      throw new ProviderError(
        "bad_request",
        `bad model reference "${model}": write it as hf:<user>/<repo>/<file>.gguf`,
      );
    }
    const url = `${HF_BASE_URL}/${user}/${repo}/resolve/main/${file.map(encodeURIComponent).join("/")}`;
    return { path: join(modelsDir, safeFileName(`${user}_${repo}_${file.at(-1)}`)), url };
  }
  if (/^https?:\/\//.test(model)) {
    const name = decodeURIComponent(basename(new URL(model).pathname)) || "model.gguf";
    return { path: join(modelsDir, safeFileName(name)), url: model };
  }
  return { path: resolve(cwd, model.replace(/^~(?=\/|$)/, homedir())) };
}

/** How to bring a model file, for listings and errors that find none (`harness models`, `/model`). */
export function howToAddModel(modelsDir: string): string {
  return `use a GGUF file you have with --model /path/to/file.gguf (in chat: /model /path/to/file.gguf), or download one into ${modelsDir} with --model hf:<user>/<repo>/<file>.gguf or an https URL`;
}

/** The complete .gguf files in the models folder, as paths `--model` takes. */
export async function listDownloadedModels(modelsDir: string): Promise<string[]> {
  const names = await readdir(modelsDir).catch(() => [] as string[]);
  return names
    .filter((name) => name.endsWith(".gguf"))
    .sort()
    .map((name) => join(modelsDir, name));
}

function safeFileName(name: string): string {
  return name.replace(/[^\w.-]+/g, "_");
}

/**
 * Downloads `url` to `path` through `path.partial`. A `.partial` left by an interrupted run is
 * continued with a Range request (a server that ignores Range makes it start over). The file
 * appears under its real name only once complete.
 */
export async function downloadFile(
  url: string,
  path: string,
  options: { signal: AbortSignal; onProgress?: (progress: DownloadProgress) => void },
): Promise<void> {
  const partial = `${path}.partial`;
  await makePrivateFolderAsync(resolve(path, ".."));
  const resumedFrom = await stat(partial).then(
    (s) => s.size,
    () => 0,
  );
  let response: Response;
  try {
    response = await fetchWithProxy(url, {
      signal: options.signal,
      headers: resumedFrom > 0 ? { range: `bytes=${resumedFrom}-` } : {},
    });
  } catch (error) {
    throw neverOpened(error, url, resolve(path, "..")) ?? downloadError(error, url, options.signal);
  }
  if (response.status === 416 && resumedFrom > 0) {
    // The partial file already holds everything the server has.
    await response.body?.cancel();
    await rename(partial, path);
    return;
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    const hint =
      response.status === 401 || response.status === 403
        ? " (the model may be gated: download it in a browser and pass --model /path/to/file.gguf)"
        : "";
    throw new ProviderError(
      response.status === 404 ? "not_found" : "network",
      `could not download the model from ${url}: HTTP ${response.status}${hint}`,
      { status: response.status },
    );
  }
  const isResuming = response.status === 206;
  const start = isResuming ? resumedFrom : 0;
  const length = Number(response.headers.get("content-length"));
  const total = Number.isFinite(length) && response.headers.get("content-length") !== null ? start + length : undefined;

  const file = createWriteStream(partial, { flags: isResuming ? "a" : "w", mode: PRIVATE_FILE_MODE });
  const startedAt = Date.now();
  let received = start;
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      received += chunk.length;
      if (!file.write(chunk)) await once(file, "drain");
      const seconds = Math.max((Date.now() - startedAt) / 1000, 0.001);
      options.onProgress?.({ received, total, resumedFrom: start, bytesPerSecond: (received - start) / seconds });
    }
  } catch (error) {
    throw downloadError(error, url, options.signal, received, total);
  } finally {
    file.end();
    await once(file, "close");
  }
  if (total !== undefined && received !== total)
    throw downloadError(new Error("connection closed early"), url, options.signal, received, total);
  await rename(partial, path);
}

/** Codes of a connection that never opened: no route, no name, nothing listening. */
const UNREACHABLE_CODES = new Set([
  "ENOTFOUND",
  "EAI_AGAIN",
  "ECONNREFUSED",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * The download never started (offline, DNS, refused): said as such, with the way to go on
 * without the network, not as a download that "broke off" (issue 37). Not retried more than once.
 */
function neverOpened(error: unknown, url: string, modelsDir: string): ProviderError | undefined {
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  if (!cause?.code || !UNREACHABLE_CODES.has(cause.code)) return undefined;
  const isNameLookup = cause.code === "ENOTFOUND" || cause.code === "EAI_AGAIN";
  const why = isNameLookup ? `${cause.code}: offline, or the name does not resolve` : cause.code;
  return new ProviderError(
    "unreachable",
    `cannot reach ${new URL(url).host} to download the model (${why}); nothing was downloaded. Instead, ${howToAddModel(modelsDir)}`,
    { cause: error },
  );
}

function downloadError(
  error: unknown,
  url: string,
  signal: AbortSignal,
  received?: number,
  total?: number,
): ProviderError {
  if (signal.aborted) return new ProviderError("aborted", "interrupted");
  const where =
    received === undefined ? "" : ` after ${formatBytes(received)}${total ? ` of ${formatBytes(total)}` : ""}`;
  // "network" is retryable: the loop's retry continues the download where it stopped.
  return new ProviderError(
    "network",
    `the model download from ${url} broke off${where} (${error instanceof Error ? error.message : String(error)}); run again to resume it`,
    { cause: error },
  );
}

/** One line of the download bar: `name  41% 1.0 GB / 2.5 GB  12.3 MB/s`. */
export function formatProgress(name: string, progress: DownloadProgress): string {
  const { received, total, bytesPerSecond } = progress;
  const percent = total ? `${Math.floor((received / total) * 100)}% ` : "";
  const size = total ? `${formatBytes(received)} / ${formatBytes(total)}` : formatBytes(received);
  const left =
    total && bytesPerSecond > 0 ? `  ${formatDuration(((total - received) / bytesPerSecond) * 1000)} left` : "";
  return `${name}  ${percent}${size}  ${formatBytes(bytesPerSecond)}/s${left}`;
}

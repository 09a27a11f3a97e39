// One API request: a JSON POST over Node's own `http`/`https`. It is all the official clients
// (`openai`, `@anthropic-ai/sdk`) did for the adapters, which read the reply themselves (sse.ts).
// Not `fetch`: Node's fetch is undici, whose first use compiles about 50 ms of JavaScript and a
// WebAssembly HTTP parser before the first request can leave, and keeps ~10 MB more resident;
// `http` parses with Node's built-in llhttp. *Decision*: redirects are not followed (an API that
// answers a POST with a 3xx is misconfigured; the status is reported), and no compression is
// asked for (event streams are not compressed anyway), as with the SDKs' own defaults minus those.
import type { Agent, ClientRequest, IncomingHttpHeaders, IncomingMessage } from "node:http";
import { debugLog, loggedUrl } from "../shared/debug-log.ts";
import { KEEP_ALIVE_IDLE_MS, proxyFor, requestViaProxy } from "../shared/proxy.ts";

/** A response's headers by name, whatever their case; repeated ones joined with ", ". */
export interface HeaderLookup {
  get(name: string): string | null;
}

/** An HTTP answer: its status, its headers, and its body, read once (as bytes, or whole). */
export interface HttpReply {
  readonly status: number;
  readonly headers: HeaderLookup;
  /** The body's bytes as they arrive; aborting the request's signal ends it with an AbortError. */
  readonly body: AsyncIterable<Uint8Array>;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/** A non-2xx answer, in the shape http-errors.ts reads (the fields of the SDKs' APIError). */
export class HttpStatusError extends Error {
  override readonly name = "HttpStatusError";
  constructor(
    readonly status: number,
    readonly headers: HeaderLookup,
    /** The body parsed as JSON; undefined when it was not JSON (then the message carries it). */
    readonly error: unknown,
    message: string,
  ) {
    super(message);
  }
}

/** Sends `body` as JSON; resolves to a 2xx reply (its body unread), throws HttpStatusError otherwise. */
export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  signal: AbortSignal,
): Promise<HttpReply> {
  const reply = await sendRequest(url, { method: "POST", headers, body: JSON.stringify(body), signal });
  if (reply.status >= 200 && reply.status < 300) return reply;
  throw await statusError(reply);
}

/**
 * One request; resolves when the answer's status and headers are in, whatever the status.
 * Rejects with Node's socket error (its `code`: ECONNREFUSED, ENOTFOUND, ...) or, once `signal`
 * is aborted, with an AbortError.
 */
export async function sendRequest(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal },
): Promise<HttpReply> {
  const target = new URL(url);
  if (target.protocol !== "http:" && target.protocol !== "https:")
    throw new TypeError(`${url}: only http and https URLs can be asked`);
  // HTTPS_PROXY, HTTP_PROXY, NO_PROXY (shared/proxy.ts): the proxy decides the client and options.
  const proxy = proxyFor(target);
  const via = proxy ? await requestViaProxy(target, proxy) : undefined;
  const client = via?.client ?? (target.protocol === "https:" ? "https" : "http");
  // https (and with it tls) only loads for an https URL or proxy.
  const { request } = client === "https" ? await import("node:https") : await import("node:http");
  const agent = (via?.options.agent as Agent | undefined) ?? (await keptAliveAgent(client));
  const { signal } = init;
  signal.throwIfAborted();
  const headers = {
    ...init.headers,
    ...(init.body === undefined ? {} : { "content-length": String(Buffer.byteLength(init.body)) }),
    ...(via?.options.headers as Record<string, string> | undefined),
  };
  const send = (staleLeft: number): Promise<HttpReply> =>
    new Promise((resolve, reject) => {
      const sent: ClientRequest = request(
        target,
        { ...via?.options, agent, method: init.method, headers, signal },
        (message) => resolve(replyOf(message, signal)),
      );
      sent.on("error", (error: NodeJS.ErrnoException) => {
        if (signal.aborted) return reject(abortError(signal));
        // A kept-alive connection the server closed while idle fails as it is reused, before any
        // answer: the server never saw the request, so it goes again at once on another connection
        // (as Node's docs advise for `reusedSocket`), not after the retry loop's wait and warning.
        if (sent.reusedSocket && staleLeft > 0 && /^(ECONNRESET|EPIPE)$/.test(error.code ?? ""))
          return resolve(send(staleLeft - 1));
        reject(error);
      });
      sent.end(init.body);
    });
  const started = performance.now();
  try {
    const reply = await send(MAX_STALE_RETRIES);
    debugLog(
      "api",
      () => `${init.method} ${loggedUrl(target)} -> ${reply.status} in ${elapsed(started)}${sizeOf(init.body)}`,
    );
    return reply;
  } catch (error) {
    debugLog(
      "api",
      () => `${init.method} ${loggedUrl(target)} failed in ${elapsed(started)}: ${(error as Error).message}`,
    );
    throw error;
  }
}

function elapsed(since: number): string {
  return `${Math.round(performance.now() - since)} ms`;
}

function sizeOf(body: string | undefined): string {
  return body === undefined ? "" : ` (${Buffer.byteLength(body)} bytes sent)`;
}

/** Kept-alive connections that may turn out closed, one after the other, before a call fails. */
const MAX_STALE_RETRIES = 3;

/**
 * One agent per scheme for every request of the process, keeping connections alive between model
 * calls. *Decision*: idle up to KEEP_ALIVE_IDLE_MS rather than Node's global agent's 5 s, which
 * a tool run or a person's reading outlasts; a server's shorter `Keep-Alive: timeout=` still
 * wins (Node's agent reads it), and one it closed sooner is retried above.
 */
const agents = new Map<string, Promise<Agent>>();

function keptAliveAgent(client: "http" | "https"): Promise<Agent> {
  let agent = agents.get(client);
  if (!agent) {
    agent = (client === "https" ? import("node:https") : import("node:http")).then(
      ({ Agent }) => new Agent({ keepAlive: true, scheduling: "lifo", timeout: KEEP_ALIVE_IDLE_MS }),
    );
    agents.set(client, agent);
  }
  return agent;
}

/**
 * Most bytes read after a reader stopped early (chat completions stops at `[DONE]`, before the
 * chunked body's last zero-length chunk arrives) to let the connection go back to the pool for
 * the next call; a server that sends more than this, or not within DRAIN_MS, has its connection
 * closed instead. *Decision*: 64 KiB and 2 s, far above the few bytes a well-behaved server has left.
 */
const DRAIN_BYTES = 64 * 1024;
const DRAIN_MS = 2000;

function replyOf(message: IncomingMessage, signal: AbortSignal): HttpReply {
  async function* body(): AsyncGenerator<Uint8Array> {
    try {
      // Not destroyed when the reader stops: the `finally` drains it (keep-alive) or destroys it.
      for await (const chunk of message.iterator({ destroyOnReturn: false })) yield chunk as Buffer;
    } catch (error) {
      if (signal.aborted) throw abortError(signal);
      // Node says only "aborted" when the server hangs up mid-reply. No `cause`: the error line
      // names the innermost error with a code (http-errors.ts), which would be Node's again.
      if ((error as Error).message === "aborted")
        throw Object.assign(new Error("the connection closed in the middle of the reply"), {
          code: (error as NodeJS.ErrnoException).code ?? "ECONNRESET",
        });
      throw error;
    } finally {
      // A reader that stops early lets the rest of the reply go: read (bounded) so its connection
      // serves the next call, else closed (an error event, a cap, an aborted call).
      if (!message.complete) drainOrDestroy(message, signal);
    }
  }
  return replyOver(message.statusCode ?? 0, headerLookup(message.headers), body());
}

/** Reads what is left of `message` to its end, or destroys it past DRAIN_BYTES, DRAIN_MS or an abort. */
function drainOrDestroy(message: IncomingMessage, signal: AbortSignal): void {
  if (signal.aborted || message.destroyed) return void message.destroy();
  let left = DRAIN_BYTES;
  const timer = setTimeout(() => message.destroy(), DRAIN_MS).unref();
  message.on("data", (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) message.destroy();
  });
  message.once("close", () => clearTimeout(timer));
  message.on("error", () => {}); // the call is over: a late error of its rest is nobody's to handle
  message.resume();
}

/** A reply over `body`; `text()` and `json()` read the whole of it. */
export function replyOver(status: number, headers: HeaderLookup, body: AsyncIterable<Uint8Array>): HttpReply {
  const text = async () => {
    const parts: Uint8Array[] = [];
    for await (const bytes of body) parts.push(bytes);
    return Buffer.concat(parts).toString("utf8");
  };
  return { status, headers, body, text, json: async () => JSON.parse(await text()) };
}

function headerLookup(headers: IncomingHttpHeaders): HeaderLookup {
  return {
    get(name) {
      const value = headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
  };
}

/** What fetch threw on an abort: an error named AbortError (http-errors.ts reads the name), the reason as its cause. */
function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error("the request was aborted", { cause: signal.reason }), { name: "AbortError" });
}

/** `path` under the base URL, however many slashes the base ends with. */
export function endpoint(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/${path}`;
}

async function statusError(reply: HttpReply): Promise<HttpStatusError> {
  const text = await reply.text().catch((error: Error) => error.message);
  const json = parseJson(text);
  const inner = (json as { error?: { message?: unknown } } | undefined)?.error;
  const detail = typeof inner?.message === "string" ? inner.message : text.trim();
  const message = detail ? `${reply.status} ${detail}` : `${reply.status} status code (no body)`;
  return new HttpStatusError(reply.status, reply.headers, json, message);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

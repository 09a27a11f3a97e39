// `fetch` that honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY (shared/proxy.ts), for the callers that
// use fetch: `harness models`, the local model's download and the MCP SDK's HTTP transports. With
// no proxy for a URL it is the global fetch, unchanged; through a proxy it is Node's http/https
// with the proxy's options, and a WHATWG Response built from the answer. Node 20 and 22's fetch
// ignore the variables, and Node 24's NODE_USE_ENV_PROXY is read only at start-up.
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { proxyFor, requestViaProxy } from "./proxy.ts";

/** As fetch's own limit. */
const MAX_REDIRECTS = 20;

export async function fetchWithProxy(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  let url = new URL(input instanceof Request ? input.url : String(input));
  if (!proxyFor(url)) return fetch(input, init);
  if (input instanceof Request) throw new TypeError("fetchWithProxy takes a URL and init, not a Request");
  let method = (init.method ?? "GET").toUpperCase();
  let body = bodyBytes(init.body);
  for (let hop = 0; ; hop++) {
    const proxy = proxyFor(url);
    if (!proxy) return fetch(url, { ...init, method, body: body as BodyInit | undefined });
    const answer = await sendVia(url, proxy, method, new Headers(init.headers), body, init.signal ?? undefined);
    const location = answer.headers.location;
    const isRedirect = [301, 302, 303, 307, 308].includes(answer.statusCode ?? 0) && location;
    if (!isRedirect || init.redirect === "manual") return responseOf(answer, method);
    answer.resume();
    if (init.redirect === "error") throw new TypeError(`fetch failed: ${url.href} redirects, and redirect is "error"`);
    if (hop >= MAX_REDIRECTS)
      throw new TypeError(`fetch failed: more than ${MAX_REDIRECTS} redirects from ${url.href}`);
    // As fetch does: 303 (and 301/302 after a POST) become a GET without a body.
    if (answer.statusCode === 303 || ((answer.statusCode === 301 || answer.statusCode === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
    }
    url = new URL(location, url);
  }
}

function sendVia(
  url: URL,
  proxy: URL,
  method: string,
  headers: Headers,
  body: Uint8Array | undefined,
  signal: AbortSignal | undefined,
): Promise<IncomingMessage> {
  return requestViaProxy(url, proxy).then(async (via) => {
    const { request } = via.client === "https" ? await import("node:https") : await import("node:http");
    const own: Record<string, string> = Object.fromEntries(headers.entries());
    if (body !== undefined) own["content-length"] = String(body.byteLength);
    return new Promise<IncomingMessage>((resolve, reject) => {
      const sent = request(
        url,
        { ...via.options, method, headers: { ...own, ...(via.options.headers as Record<string, string>) }, signal },
        resolve,
      );
      sent.on("error", (error) => reject(new TypeError("fetch failed", { cause: error })));
      sent.end(body);
    });
  });
}

function bodyBytes(body: RequestInit["body"]): Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString());
  throw new TypeError("fetchWithProxy sends string, byte and form bodies only");
}

function responseOf(answer: IncomingMessage, method: string): Response {
  const headers = new Headers();
  for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2)
    headers.append(answer.rawHeaders[i], answer.rawHeaders[i + 1]);
  const status = answer.statusCode ?? 502;
  const empty = method === "HEAD" || status === 204 || status === 205 || status === 304;
  if (empty) answer.resume();
  const body = empty ? null : (Readable.toWeb(answer) as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: answer.statusMessage, headers });
}

// web_fetch: one public web page as Markdown or text, fetched by the harness process itself
// (never inside the sandbox), with no credentials or cookies; through the user's proxy if one is set.
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { z } from "zod";
import { defineTool, type NetworkJudge } from "../core/tool.ts";
import { deadline } from "../shared/helpers.ts";
import { proxyFor, requestViaProxy } from "../shared/proxy.ts";
import { guardedLookup, whyRefused } from "../shared/public-address.ts";
import { truncateMiddle } from "./output-limit.ts";

/** Most bytes read from one response; the rest is not downloaded. */
const MAX_BODY_BYTES = 2 * 1024 * 1024;
/** Longest a whole fetch (all redirects included) may take, unless HARNESS_WEB_FETCH_TIMEOUT (seconds) says otherwise. */
const DEFAULT_TIMEOUT_MS = 30_000;
/** Redirects followed within one host; a redirect to another host is handed back to the model (it needs its own approval). */
const MAX_REDIRECTS = 5;

/** Private addresses the user opened to web_fetch: `HARNESS_WEB_FETCH_ALLOW=127.0.0.1,10.0.0.5` (comma-separated, exact addresses). */
function allowedAddresses(): string[] {
  return (process.env.HARNESS_WEB_FETCH_ALLOW ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** The time cap of one fetch: HARNESS_WEB_FETCH_TIMEOUT seconds when it is a positive number, else the default. */
function timeoutMs(): number {
  const seconds = Number(process.env.HARNESS_WEB_FETCH_TIMEOUT);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : DEFAULT_TIMEOUT_MS;
}

interface Fetched {
  status: number;
  location?: string;
  contentType: string;
  body: Buffer;
  cut: boolean;
}

/**
 * How to reach `url`: directly, resolving its name with the address check at connect time; or,
 * when HTTPS_PROXY / HTTP_PROXY covers it (shared/proxy.ts), through the proxy to the address we
 * resolved and checked here: the proxy is told that address, not the name, so it cannot resolve
 * the name to another (a private one) behind our check. The proxy's own address is not checked:
 * the user chose it.
 */
async function route(
  url: URL,
  allowed: string[],
): Promise<{ client: Pick<typeof http, "get">; options: http.RequestOptions }> {
  const proxy = proxyFor(url);
  if (!proxy)
    return { client: url.protocol === "https:" ? https : http, options: { lookup: guardedLookup(allowed) as never } };
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const address = isIP(host)
    ? host
    : await new Promise<string>((resolve, reject) =>
        guardedLookup(allowed)(host, {}, (error, found) => (error ? reject(error) : resolve(found as string))),
      );
  const via = await requestViaProxy(url, proxy, address);
  return { client: via.client === "https" ? https : http, options: via.options };
}

/** One GET, no redirect following; at most MAX_BODY_BYTES of body. */
async function get(url: URL, signal: AbortSignal, allowed: string[]): Promise<Fetched> {
  const { client, options } = await route(url, allowed);
  return new Promise((resolve, reject) => {
    const request = client.get(
      url,
      {
        agent: false,
        ...options,
        signal,
        headers: {
          "user-agent": "harness-web-fetch",
          accept: "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5",
          ...(options.headers as Record<string, string> | undefined),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = (cut: boolean) =>
          resolve({
            status: response.statusCode ?? 0,
            location: response.headers.location,
            contentType: response.headers["content-type"] ?? "",
            body: Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES),
            cut,
          });
        response.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size > MAX_BODY_BYTES) {
            response.destroy();
            finish(true);
          }
        });
        response.on("end", () => finish(false));
        response.on("error", reject);
      },
    );
    request.on("error", reject);
  });
}

/** Why this URL may not be fetched before any connection is made, or undefined. */
function whyNotFetchable(url: URL, allowed: string[]): string | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return `${url.protocol} URLs are not fetched; only http and https`;
  if (url.username || url.password) return "URLs with credentials in them are not fetched";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return isIP(host) ? whyRefused(host, allowed) : undefined;
}

async function fetchPage(
  start: URL,
  signal: AbortSignal,
): Promise<{ content: string; isError?: boolean; summary: string }> {
  const allowed = allowedAddresses();
  let url = start;
  for (let hop = 0; ; hop++) {
    const refused = whyNotFetchable(url, allowed);
    if (refused) return { content: `Not fetched: ${refused}.`, isError: true, summary: "refused" };
    const page = await get(url, signal, allowed);
    if (page.status >= 300 && page.status < 400 && page.location) {
      const next = new URL(page.location, url);
      if (next.host !== url.host)
        return {
          content: `${url.href} redirects to ${next.href}, another host: call web_fetch with that URL if you want it.`,
          summary: `redirect to ${next.host}`,
        };
      if (hop >= MAX_REDIRECTS)
        return {
          content: `Not fetched: more than ${MAX_REDIRECTS} redirects (last to ${next.href}).`,
          isError: true,
          summary: "too many redirects",
        };
      url = next;
      continue;
    }
    const text = await asText(page);
    if (text === undefined)
      return {
        content: `Not fetched: ${url.href} is ${page.contentType || "of no stated type"}, not a page or text.`,
        isError: true,
        summary: "not text",
      };
    const note = page.cut ? `\n\n[the page was longer than ${MAX_BODY_BYTES} bytes; the rest was not downloaded]` : "";
    const head = page.status >= 400 ? `HTTP ${page.status} from ${url.href}\n\n` : "";
    return {
      content: truncateMiddle(head + text + note),
      isError: page.status >= 400,
      summary: `${page.status} ${page.body.length} bytes`,
    };
  }
}

/** The body as the model should read it: HTML as Markdown; JSON, Markdown and other text as they are; undefined for anything else. */
async function asText(page: Fetched): Promise<string | undefined> {
  const type = page.contentType.split(";")[0].trim().toLowerCase();
  const text = page.body.toString("utf8");
  if (type === "text/html" || type === "application/xhtml+xml") return htmlToMarkdown(text);
  if (
    type === "" ||
    type.startsWith("text/") ||
    type === "application/json" ||
    type.endsWith("+json") ||
    type.endsWith("+xml") ||
    type === "application/xml"
  )
    return text;
  return undefined;
}

async function htmlToMarkdown(html: string): Promise<string> {
  const { default: TurndownService } = await import("turndown");
  const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  turndown.remove(["script", "style", "noscript", "iframe", "head"] as never);
  return turndown.turndown(html);
}

/**
 * With sandbox.network a list, web_fetch reaches what commands may reach, and asks the same
 * question where one can be asked (redirects stay on the host; another host comes back to the
 * model as a new call). With the network off or on, it is as before: its own approval decides.
 */
async function networkRefusal(url: URL, network: NetworkJudge | undefined): Promise<string | undefined> {
  if (network?.mode !== "list") return undefined;
  const isTls = url.protocol === "https:";
  const port = Number(url.port || (isTls ? 443 : 80));
  const verdict = await network.judge(url.hostname.replace(/^\[|\]$/g, ""), port, isTls ? "connect" : "http", {
    command: `web_fetch ${url.href}`,
  });
  return verdict.allowed ? undefined : `${verdict.why} (web_fetch follows sandbox.network: docs/network.md)`;
}

export const webFetch = defineTool({
  name: "web_fetch",
  description: "Fetch a public http(s) URL and return the page as Markdown (HTML) or text (JSON, plain text).",
  kind: "execute",
  changesFiles: false,
  input: z.object({ url: z.string() }),
  describe: (call) => `fetch ${call.url}`,
  effects: (call) => ({ fetches: call.url }),
  async run(call, context) {
    if (!URL.canParse(call.url))
      return {
        content: `Not fetched: "${call.url}" is not a URL; give a full http(s) URL.`,
        isError: true,
        summary: "bad URL",
      };
    const refusal = await networkRefusal(new URL(call.url), context.network);
    if (refusal) return { content: `Not fetched: ${refusal}.`, isError: true, summary: "refused" };
    const limit = timeoutMs();
    const cap = deadline(limit, context.signal);
    try {
      return await fetchPage(new URL(call.url), cap.signal);
    } catch (error) {
      const reason = cap.isExpired() ? `no complete answer within ${limit / 1000} s` : (error as Error).message;
      return { content: `Not fetched: ${reason}.`, isError: true, summary: "failed" };
    } finally {
      cap.clear();
    }
  },
});

// The requests a sign-in makes (authorisation servers, token exchanges): bounded in time and in
// size, and whatever comes back is checked field by field before anything is stored. A hostile or
// broken server (a huge body, a token of megabytes, JSON of the wrong shape) ends the sign-in with
// one line and stores nothing. Bodies and tokens never appear in an error text: only the status
// and the OAuth `error` code, which is a word.
import { fetchWithProxy } from "../../shared/proxy-fetch.ts";
import { SignInError } from "./credential-store.ts";

/** A token endpoint's answer is a few KB; more than this is not one. */
const MAX_BODY_BYTES = 256 * 1024;
/** The longest token we keep (JWTs of ChatGPT's sign-in are ~2 KB). */
const MAX_TOKEN_CHARS = 16 * 1024;
/** Each request of a sign-in. */
const REQUEST_TIMEOUT_MS = 30_000;

interface SignInReply {
  status: number;
  /** The body parsed as a JSON object; undefined when it was not one. */
  json: Record<string, unknown> | undefined;
}

/** One request; a body over MAX_BODY_BYTES, a timeout or no answer is a SignInError naming `what`. */
export async function signInRequest(
  what: string,
  url: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    form?: Record<string, string>;
    json?: unknown;
    timeoutMs?: number;
  },
): Promise<SignInReply> {
  const headers: Record<string, string> = { accept: "application/json", ...init.headers };
  let body: string | undefined;
  if (init.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(init.form).toString();
  } else if (init.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(init.json);
  }
  let response: Response;
  try {
    response = await fetchWithProxy(url, {
      method: init.method ?? (body === undefined ? "GET" : "POST"),
      headers,
      body,
      redirect: "error",
      signal: AbortSignal.timeout(init.timeoutMs ?? REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    const cause = (error as Error).cause as { code?: string } | undefined;
    throw new SignInError(`${what}: cannot reach ${new URL(url).origin} (${cause?.code ?? (error as Error).name})`);
  }
  const text = await boundedText(response, what);
  let json: Record<string, unknown> | undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: response.status, json };
}

async function boundedText(response: Response, what: string): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) {
    await response.body?.cancel();
    throw new SignInError(`${what}: the server's answer is too large (${declared} bytes)`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (!response.body) return "";
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) {
      await response.body.cancel().catch(() => undefined);
      throw new SignInError(`${what}: the server's answer is too large (over ${MAX_BODY_BYTES} bytes)`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A string field that must be there: a token-like value, printable and at most MAX_TOKEN_CHARS. */
export function tokenField(reply: SignInReply, field: string, what: string): string {
  const value = reply.json?.[field];
  if (
    typeof value !== "string" ||
    value.length === 0 ||
    value.length > MAX_TOKEN_CHARS ||
    !/^[\x21-\x7e]+$/.test(value)
  )
    throw new SignInError(`${what}: the server's answer has no usable "${field}"`);
  return value;
}

/** An optional short text field (an email, a plan, a login), else undefined. */
export function textField(source: Record<string, unknown> | undefined, field: string): string | undefined {
  const value = source?.[field];
  return typeof value === "string" && value.length > 0 && value.length <= 256 && /^[^\x00-\x1f\x7f]+$/.test(value)
    ? value
    : undefined;
}

/** The OAuth error code of an answer (`authorization_pending`, `invalid_grant`...): a word, or "". */
export function oauthError(reply: SignInReply): string {
  const error = reply.json?.error;
  const code = typeof error === "string" ? error : (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^[a-z_]{1,64}$/.test(code) ? code : "";
}

/** The claims of a JWT (unverified: it came over TLS from the issuer; we read, never trust for access). */
export function jwtClaims(token: string): Record<string, unknown> {
  const payload = token.split(".")[1];
  if (!payload) return {};
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as unknown;
    return claims && typeof claims === "object" ? (claims as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A count of seconds a server gave (a number or a numeric string), within 0..most; `fallback` when it gave none. */
export function secondsOr(value: unknown, fallback: number, most: number): number {
  const seconds = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof seconds === "number" && Number.isFinite(seconds) ? Math.min(Math.max(seconds, 0), most) : fallback;
}

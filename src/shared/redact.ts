// Secrets out of everything harness writes down: session files, logs, JSON output.
// It lives in core because the session writer, the terminal modes and the permission layer
// all need it, and none of them may import another.

/** What a redacted value becomes. */
export const REDACTED = "[redacted]";

/** Values shorter than this are never treated as secrets by value (too many false hits). */
const MIN_SECRET_CHARS = 8;

/**
 * Shapes of keys and tokens, redacted wherever they appear. None of them matches a quote or
 * a backslash, so redacting serialised JSON cannot break it.
 */
const TOKEN_SHAPES: RegExp[] = [
  /\bsk-(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{16,}/g, // OpenAI, Anthropic (sk-ant-), OpenRouter (sk-or-); a digit, so prose like sk-learn-compatible-models is left alone
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, // AWS access key ids
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /\bAIza[A-Za-z0-9_-]{30,}/g, // Google API keys
  /\bglpat-[A-Za-z0-9_-]{20,}/g, // GitLab
  // Sign-ins (issue 43). A JWT (ChatGPT's access and id tokens, and any other bearer JWT): three
  // base64url parts, the first one a JSON header (`{"` encodes as `eyJ`); the signature may be empty (alg none).
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g,
  // OpenAI's refresh tokens as Codex's auth.json holds them (`rt_` then base64url, maybe a `.` part).
  // *Decision*: no public page documents the shape; 20+ characters keeps `rt_table`-like names out.
  /\brt_[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)?/g,
  // A Copilot token (`tid=...;exp=...;sku=...;...;8kp=1:...`, sst/opencode-copilot-auth, copilot.vim): to its end.
  /\btid=[A-Za-z0-9_-]+;exp=[0-9]+[^\s"'\\]*/g,
  // A key cut off before its END line (a truncated output, a stream not yet finished) is redacted to the end.
  /-----BEGIN [A-Z ]*PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----|[\s\S]*$)/g,
];

/**
 * The start of a key shape at the very end of a text (`sk-ant-api03-Zx8K`): a key the model cut
 * off there, whose rest may come in its next reply. Redacted like a whole key (as a private key
 * without its END line is), since the part shown is part of a key.
 */
const CUT_KEY_AT_END =
  /\b(?:sk-|(?:ghp|gho|ghu|ghs|ghr)_|github_pat_|AKIA|ASIA|xox[abposr]-|AIza|glpat-|rt_)[A-Za-z0-9_-]{4,}$|\beyJ[A-Za-z0-9_.-]{4,}$|\btid=[^\s"'\\]{4,}$/;

/**
 * Characters in a row of a known secret value that are redacted wherever they appear: a key the
 * model splits across two replies (or tool calls) reaches each of them in part, never whole.
 */
const SECRET_FRAGMENT_CHARS = 12;
/** A text ending in this many first characters of a known secret value or more ends in a key cut off there. */
const SECRET_START_CHARS = 6;

/** `Authorization: Bearer xyz`, `x-api-key: xyz` and friends: the header name stays, the value goes. */
const HEADER_VALUE =
  /\b((?:proxy-)?authorization|x-api-key|api-key|x-auth-token)(["']?\s*[:=]\s*["']?)(?:(?:Bearer|Basic|Token|Bot)\s+)?[^\s"'\\,;]+/gi;

/** `.env`-style lines (`export API_TOKEN=...`) whose name looks like a credential. */
const ENV_LINE = /^(\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*)(["']?)([^\s"'\\]+)\3/gm;

/** The userinfo of a URL (`https://user:key@host`): the scheme and host stay. */
const URL_USERINFO = /\b([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\s/?#@"'\\<>]+@/g;

/** A query parameter (`?api_key=...`, `&sig=...`); its value goes when its name looks like a credential. */
const QUERY_PARAM = /([?&])([A-Za-z0-9_.-]+)=([^&#\s"'\\<>]+)/g;

/**
 * Every pattern redactText applies, for the stream redactor (stream-redactor.ts), which must
 * hold back any match that touches the end of what has arrived so far.
 */
export const REDACTION_PATTERNS: readonly RegExp[] = [
  ...TOKEN_SHAPES,
  HEADER_VALUE,
  ENV_LINE,
  URL_USERINFO,
  QUERY_PARAM,
];

/**
 * The start of a match whose secret has not arrived yet, at the end of a text: a header name
 * (`Authorization: Bearer `), an assignment (`API_KEY = `), a private key's BEGIN line. The
 * stream redactor holds these back too, since the value alone would not be recognised.
 */
export const PENDING_MATCHES: readonly RegExp[] = [
  /\b(?:(?:proxy-)?authorization|x-api-key|api-key|x-auth-token)["']?\s*[:=]?\s*["']?(?:[A-Za-z]+\s+)?[^\s"'\\,;]*$/i,
  /^[ \t]*(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_]*[ \t]*(?:=[ \t]*["']?[^\s"'\\]*)?$/m,
  /-----BEGIN[A-Z ]*-{0,5}$/,
  // A JWT or a Copilot token not yet whole: its next part may still come.
  /\beyJ[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*){0,2}$/,
  /\btid=[^\s"'\\]*$/,
];

/**
 * Whether an environment variable's name says it holds a credential. Long words match
 * anywhere (`DB_PASSWORD`, `GH_TOKEN`); short ones only as a whole `_` part (`API_KEY`,
 * `SSH_AUTH_SOCK`, but not `KEYBOARD` or `AUTHOR`).
 */
export function isCredentialName(name: string): boolean {
  const upper = name.toUpperCase();
  if (/TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|APIKEY|PRIVATE_KEY/.test(upper)) return true;
  if (/^AWS_/.test(upper)) return true;
  return upper
    .split(/_+/)
    .some((part) => part === "KEY" || part === "AUTH" || part === "PASS" || part === "PAT" || part === "COOKIE");
}

/** Query parameter names that carry credentials: as for variables, plus signed-URL fields (`sig`, `X-Amz-Signature`). */
function isCredentialParam(name: string): boolean {
  const upper = name.toUpperCase().replace(/[-.]/g, "_");
  return (
    isCredentialName(upper) ||
    /(^|_)(SIG|SIGNATURE|CODE|SESSION|SID|ACCESS_TOKEN)$|^X_AMZ_(SIGNATURE|CREDENTIAL|SECURITY_TOKEN)$/.test(upper)
  );
}

/** The values of credential-looking variables in `env`: the actual keys to redact by value. */
export function secretValuesOf(env: Record<string, string | undefined>): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= MIN_SECRET_CHARS && isCredentialName(name)) values.add(value);
  }
  // Longest first, so a key that contains another is replaced whole.
  return [...values].sort((a, b) => b.length - a.length);
}

/** Secret values long enough to redact by value (shorter ones would hit ordinary text). */
export function redactableSecrets(secrets: readonly string[]): string[] {
  return secrets.filter((secret) => secret.length >= MIN_SECRET_CHARS);
}

/**
 * Replaces keys, tokens, auth header values, credential `.env` lines, URL userinfo, credential
 * query parameters and the given secret values in a text.
 */
export function redactText(text: string, secrets: readonly string[] = []): string {
  let result = text;
  for (const secret of secrets)
    if (secret.length >= MIN_SECRET_CHARS && result.includes(secret)) result = result.split(secret).join(REDACTED);
  for (const secret of secrets) result = redactStartAtEnd(redactFragments(result, secret), secret);
  for (const shape of TOKEN_SHAPES) result = result.replace(shape, REDACTED);
  result = result.replace(CUT_KEY_AT_END, REDACTED);
  result = result.replace(HEADER_VALUE, (_match, name: string, separator: string) => `${name}${separator}${REDACTED}`);
  result = result.replace(ENV_LINE, (match, head: string, name: string, quote: string, value: string) =>
    isCredentialName(name) && value !== REDACTED ? `${head}${quote}${REDACTED}${quote}` : match,
  );
  result = result.replace(URL_USERINFO, (match, scheme: string) =>
    match === `${scheme}${REDACTED}@` ? match : `${scheme}${REDACTED}@`,
  );
  result = result.replace(QUERY_PARAM, (match, lead: string, name: string) =>
    isCredentialParam(name) ? `${lead}${name}=${REDACTED}` : match,
  );
  return result;
}

/** The first characters of `secret` at the very end of `text` (a key cut off there), replaced. */
function redactStartAtEnd(text: string, secret: string): string {
  if (secret.length < MIN_SECRET_CHARS) return text;
  for (let length = Math.min(secret.length - 1, text.length); length >= SECRET_START_CHARS; length--)
    if (text.endsWith(secret.slice(0, length))) return text.slice(0, text.length - length) + REDACTED;
  return text;
}

/** Every run of SECRET_FRAGMENT_CHARS or more characters of `secret` in `text`, replaced (the whole run). */
function redactFragments(text: string, secret: string): string {
  if (secret.length < SECRET_FRAGMENT_CHARS || text.length < SECRET_FRAGMENT_CHARS) return text;
  const spans: Array<[number, number]> = [];
  for (let offset = 0; offset + SECRET_FRAGMENT_CHARS <= secret.length; offset++) {
    const piece = secret.slice(offset, offset + SECRET_FRAGMENT_CHARS);
    for (let at = text.indexOf(piece); at !== -1; at = text.indexOf(piece, at + 1)) {
      let start = at;
      let end = at + SECRET_FRAGMENT_CHARS;
      for (let back = offset; start > 0 && back > 0 && text[start - 1] === secret[back - 1]; back--) start--;
      for (
        let ahead = offset + SECRET_FRAGMENT_CHARS;
        end < text.length && ahead < secret.length && text[end] === secret[ahead];
        ahead++
      )
        end++;
      spans.push([start, end]);
    }
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let result = "";
  let from = 0;
  for (const [start, end] of spans) {
    if (end <= from) continue;
    result += `${text.slice(from, Math.max(from, start))}${start >= from ? REDACTED : ""}`;
    from = end;
  }
  return result + text.slice(from);
}

/**
 * A URL to store or show (a session header's `baseUrl`): without its userinfo and without
 * credential-looking query parameters, so it stays a working URL for what it still says.
 * Text that is not a URL is redacted as text.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return redactText(url);
  }
  parsed.username = "";
  parsed.password = "";
  for (const name of [...parsed.searchParams.keys()]) if (isCredentialParam(name)) parsed.searchParams.delete(name);
  // URL adds a trailing `/` to a bare origin; keep the text as the user wrote it otherwise.
  const text = parsed.toString();
  return url.endsWith("/") || !text.endsWith("/") || parsed.pathname !== "/" ? text : text.slice(0, -1);
}

/**
 * Fields holding opaque provider data (thinking signatures, the Responses API's encrypted
 * reasoning): not text, and altering them breaks a resumed conversation.
 */
const OPAQUE_FIELDS = new Set(["signature", "redactedData", "encrypted_content"]);

/**
 * A copy of a JSON-like value with every string redacted (objects and arrays walked, keys kept).
 * Call it on each session entry, log line and JSON event before it is written.
 */
export function redact<T>(value: T, secrets: readonly string[] = []): T {
  return mapStrings(value, (text) => redactText(text, secrets));
}

/** A copy of a JSON-like value with `change` applied to every string but opaque provider data. */
export function mapStrings<T>(value: T, change: (text: string) => string): T {
  if (typeof value === "string") return change(value) as T;
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, change)) as T;
  if (value !== null && typeof value === "object") {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value))
      copy[key] = OPAQUE_FIELDS.has(key) ? item : mapStrings(item, change);
    return copy as T;
  }
  return value;
}

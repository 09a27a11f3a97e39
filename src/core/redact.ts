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
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];

/** `Authorization: Bearer xyz`, `x-api-key: xyz` and friends: the header name stays, the value goes. */
const HEADER_VALUE = /\b((?:proxy-)?authorization|x-api-key|api-key|x-auth-token)(["']?\s*[:=]\s*["']?)(?:(?:Bearer|Basic|Token|Bot)\s+)?[^\s"'\\,;]+/gi;

/** `.env`-style lines (`export API_TOKEN=...`) whose name looks like a credential. */
const ENV_LINE = /^(\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*)(["']?)([^\s"'\\]+)\3/gm;

/**
 * Whether an environment variable's name says it holds a credential. Long words match
 * anywhere (`DB_PASSWORD`, `GH_TOKEN`); short ones only as a whole `_` part (`API_KEY`,
 * `SSH_AUTH_SOCK`, but not `KEYBOARD` or `AUTHOR`).
 */
export function isCredentialName(name: string): boolean {
  const upper = name.toUpperCase();
  if (/TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|APIKEY|PRIVATE_KEY/.test(upper)) return true;
  if (/^AWS_/.test(upper)) return true;
  return upper.split(/_+/).some((part) => part === "KEY" || part === "AUTH" || part === "PASS" || part === "PAT" || part === "COOKIE");
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

/** Replaces keys, tokens, auth header values, credential `.env` lines and the given secret values in a text. */
export function redactText(text: string, secrets: readonly string[] = []): string {
  let result = text;
  for (const secret of secrets) if (secret.length >= MIN_SECRET_CHARS && result.includes(secret)) result = result.split(secret).join(REDACTED);
  for (const shape of TOKEN_SHAPES) result = result.replace(shape, REDACTED);
  result = result.replace(HEADER_VALUE, (_match, name: string, separator: string) => `${name}${separator}${REDACTED}`);
  result = result.replace(ENV_LINE, (match, head: string, name: string, quote: string, value: string) =>
    isCredentialName(name) && value !== REDACTED ? `${head}${quote}${REDACTED}${quote}` : match,
  );
  return result;
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
  if (typeof value === "string") return redactText(value, secrets) as T;
  if (Array.isArray(value)) return value.map((item) => redact(item, secrets)) as T;
  if (value !== null && typeof value === "object") {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = OPAQUE_FIELDS.has(key) ? item : redact(item, secrets);
    return copy as T;
  }
  return value;
}

/**
 * An event stream with every event, and the value it ends with, redacted: what the session
 * factory applies once, before the recorder, the terminal, JSON output or an editor see them.
 */
export async function* redactEvents<T, R>(events: AsyncGenerator<T, R>, secrets: readonly string[] = []): AsyncGenerator<T, R> {
  try {
    for (let step = await events.next(); ; step = await events.next()) {
      if (step.done) return redact(step.value, secrets);
      yield redact(step.value, secrets);
    }
  } finally {
    await events.return(undefined as R); // a consumer that stops early stops the run too
  }
}

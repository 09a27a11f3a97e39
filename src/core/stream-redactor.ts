// The one redaction point of everything harness streams: the agent's event stream (terminal,
// `--output stream-json`, session file, editor), tool output teed to spill files, and every write
// to stdout and stderr. Redacting each piece on its own misses a key split across two pieces,
// so a stream redactor holds back a short tail until it knows no key runs across it.

import {
  PENDING_MATCHES,
  REDACTED,
  REDACTION_PATTERNS,
  redact,
  redactableSecrets,
  redactText,
} from "../shared/redact.ts";
import type { AgentEvent } from "./events.ts";
import type { AssistantMessage } from "./messages.ts";

/** How far back from the end a pending match (a header name waiting for its value) is looked for. */
const PENDING_CHARS = 256;
/**
 * Most characters ever held back, so memory stays bounded on a stream with no break in it.
 * It is above the longest key shape we know (a 4096-bit RSA private key is about 3.3 KB).
 */
const MAX_HELD_CHARS = 16 * 1024;
/** Characters a key, token or URL is made of: a run of them at the end may still be growing. */
const TOKEN_CHARS = new Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.~%:@?&#");

/**
 * Redacts a text that arrives in pieces. `push` returns what is safe to show now (possibly
 * nothing); `flush` returns the rest at a boundary (the end of a reply, of a tool's output).
 * Prose flows with a lag of one word; only what could still become a secret is held.
 */
export class StreamRedactor {
  private held = "";
  private readonly secrets: string[];
  /** The text before this one ended in a redacted key: its first run of key characters is that key's rest. */
  private isContinuingSecret = false;

  constructor(secrets: readonly string[] = []) {
    this.secrets = redactableSecrets(secrets);
  }

  /** The next text continues a key the last one ended in (a key split across two replies). */
  continueSecret(): void {
    this.isContinuingSecret = true;
  }

  push(text: string): string {
    if (this.isContinuingSecret) return this.pushRestOfSecret(text);
    const buffer = this.held + text;
    const split = this.safeSplit(buffer);
    this.held = buffer.slice(split);
    return split === 0 ? "" : redactText(buffer.slice(0, split), this.secrets);
  }

  flush(): string {
    const rest = this.held;
    this.held = "";
    if (this.isContinuingSecret) {
      this.isContinuingSecret = false;
      return rest ? REDACTED : "";
    }
    return rest ? redactText(rest, this.secrets) : "";
  }

  /** Holds the leading run of key characters, and gives it back redacted once something else follows. */
  private pushRestOfSecret(text: string): string {
    const buffer = this.held + text;
    let end = 0;
    while (end < buffer.length && TOKEN_CHARS.has(buffer[end])) end++;
    if (end === buffer.length && buffer.length < MAX_HELD_CHARS) {
      this.held = buffer;
      return "";
    }
    this.isContinuingSecret = false;
    this.held = "";
    return (end > 0 ? REDACTED : "") + this.push(buffer.slice(end));
  }

  /**
   * Where the buffer can be cut: before a trailing run of key characters, a pending match, the
   * first characters of a secret value, and any match that reaches the end (it may go on) or
   * would be cut.
   */
  private safeSplit(buffer: string): number {
    let split = buffer.length;
    // Scanned by hand: a regex anchored at the end is quadratic on a long run.
    while (split > 0 && TOKEN_CHARS.has(buffer[split - 1]) && buffer.length - split < MAX_HELD_CHARS) split--;
    const tailStart = Math.max(0, buffer.length - PENDING_CHARS);
    const tail = buffer.slice(tailStart);
    for (const pattern of PENDING_MATCHES) {
      const pending = pattern.exec(tail);
      if (pending) split = Math.min(split, tailStart + pending.index);
    }
    for (const secret of this.secrets) {
      for (let length = Math.min(secret.length - 1, buffer.length); length > 0; length--) {
        if (buffer.endsWith(secret.slice(0, length))) {
          split = Math.min(split, buffer.length - length);
          break;
        }
      }
    }
    const spans = matchSpans(buffer, this.secrets);
    for (let moved = true; moved; ) {
      moved = false;
      for (const [start, end] of spans) {
        if (start < split && (end > split || end === buffer.length)) {
          split = start;
          moved = true;
        }
      }
    }
    return Math.max(split, buffer.length - MAX_HELD_CHARS);
  }
}

/** [start, end) of every pattern match and every secret value in a text. */
function matchSpans(text: string, secrets: readonly string[]): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const pattern of REDACTION_PATTERNS)
    for (const match of text.matchAll(pattern)) spans.push([match.index, match.index + match[0].length]);
  for (const secret of secrets) {
    for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1))
      spans.push([at, at + secret.length]);
  }
  return spans;
}

/**
 * The agent's events with secrets redacted: whole events through `redact`, and text and
 * thinking deltas through a StreamRedactor each, so a key split across deltas is caught. The
 * held tail goes out as one more delta at the next boundary (any other event), so every
 * consumer sees the same text in the same order. The model's own copy is never touched.
 */
export async function* redactEvents<R>(
  events: AsyncGenerator<AgentEvent, R>,
  secrets: readonly string[] = [],
): AsyncGenerator<AgentEvent, R> {
  const deltas = { text_delta: new StreamRedactor(secrets), thinking_delta: new StreamRedactor(secrets) };
  // Whether the reply's text so far ends in a redacted key, as streamed and as a whole message:
  // then the next reply's first run of key characters is that key's rest (continueSecret).
  let streamedEndsInKey = false;
  let streamContinuesKey = false;
  let messageEndsInKey = false;
  function* flush(type: keyof typeof deltas): Generator<AgentEvent> {
    const text = deltas[type].flush();
    if (text && type === "text_delta") streamedEndsInKey = text.endsWith(REDACTED);
    if (text) yield { type, text };
  }
  try {
    for (let step = await events.next(); ; step = await events.next()) {
      if (step.done) return redact(step.value, secrets);
      const event = step.value;
      if (event.type === "text_delta" || event.type === "thinking_delta") {
        yield* flush(event.type === "text_delta" ? "thinking_delta" : "text_delta");
        if (event.type === "text_delta" && streamContinuesKey) deltas.text_delta.continueSecret();
        if (event.type === "text_delta") streamContinuesKey = false;
        const text = deltas[event.type].push(event.text);
        if (text && event.type === "text_delta") streamedEndsInKey = text.endsWith(REDACTED);
        if (text) yield { ...event, text };
        continue;
      }
      yield* flush("thinking_delta");
      yield* flush("text_delta");
      if (event.type === "message" && event.message.role === "assistant") {
        const message = redactAssistantMessage(event.message, secrets, messageEndsInKey);
        messageEndsInKey = lastText(message)?.endsWith(REDACTED) ?? false;
        streamContinuesKey = streamedEndsInKey;
        streamedEndsInKey = false;
        yield { ...event, message };
        continue;
      }
      yield redact(event, secrets);
    }
  } finally {
    await events.return(undefined as R); // a consumer that stops early stops the run too
  }
}

/** An assistant message redacted; `continuesKey`: its first run of key characters is the rest of a key the last one ended in. */
function redactAssistantMessage(message: AssistantMessage, secrets: readonly string[], continuesKey: boolean) {
  const redacted = redact(message, secrets);
  const first = redacted.content.find((part) => part.type === "text");
  if (!continuesKey || !first || first.type !== "text") return redacted;
  let end = 0;
  while (end < first.text.length && TOKEN_CHARS.has(first.text[end])) end++;
  if (end > 0) first.text = REDACTED + first.text.slice(end);
  return redacted;
}

function lastText(message: AssistantMessage): string | undefined {
  const texts = message.content.filter((part) => part.type === "text");
  return texts.at(-1)?.text;
}

/**
 * The same stream with every string written to it redacted (for stdout and stderr: warnings,
 * hook and MCP messages, errors). Whole writes: streamed text must come redacted already.
 */
export function redactWrites<Stream extends NodeJS.WritableStream>(stream: Stream, secrets: readonly string[]): Stream {
  const write = (chunk: unknown, ...rest: unknown[]) =>
    (stream.write as (...args: unknown[]) => boolean)(
      typeof chunk === "string" ? redactText(chunk, secrets) : chunk,
      ...rest,
    );
  return new Proxy(stream, {
    get(target, property) {
      if (property === "write") return write;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

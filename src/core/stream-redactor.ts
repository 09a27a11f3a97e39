// The one redaction point of everything harness streams: the agent's event stream (terminal,
// `--output stream-json`, session file, editor), tool output teed to spill files, and every write
// to stdout and stderr. Redacting each piece on its own misses a key split across two pieces,
// so a stream redactor holds back a short tail until it knows no key runs across it.
import type { AgentEvent } from "./events.ts";
import { PENDING_MATCHES, REDACTION_PATTERNS, redact, redactableSecrets, redactText } from "./redact.ts";

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

  constructor(secrets: readonly string[] = []) {
    this.secrets = redactableSecrets(secrets);
  }

  push(text: string): string {
    const buffer = this.held + text;
    const split = this.safeSplit(buffer);
    this.held = buffer.slice(split);
    return split === 0 ? "" : redactText(buffer.slice(0, split), this.secrets);
  }

  flush(): string {
    const rest = this.held;
    this.held = "";
    return rest ? redactText(rest, this.secrets) : "";
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
  function* flush(type: keyof typeof deltas): Generator<AgentEvent> {
    const text = deltas[type].flush();
    if (text) yield { type, text };
  }
  try {
    for (let step = await events.next(); ; step = await events.next()) {
      if (step.done) return redact(step.value, secrets);
      const event = step.value;
      if (event.type === "text_delta" || event.type === "thinking_delta") {
        yield* flush(event.type === "text_delta" ? "thinking_delta" : "text_delta");
        const text = deltas[event.type].push(event.text);
        if (text) yield { ...event, text };
        continue;
      }
      yield* flush("thinking_delta");
      yield* flush("text_delta");
      yield redact(event, secrets);
    }
  } finally {
    await events.return(undefined as R); // a consumer that stops early stops the run too
  }
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

// A lone UTF-16 surrogate (half of an emoji) is not valid Unicode: JSON.stringify writes it as
// `\udXXX`, and strict servers refuse the whole request, and every later one of the session
// (https://github.com/anthropics/claude-code/issues/3277). Text from outside (typed, a tool's
// result, an MCP server's JSON, a model's streamed reply) is made well-formed before it is
// kept: here are the helpers, and the agent loop and the tool runner are where they are used.

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A JSON escape, read left to right so `\\` is one escape (the `ud83c` after it is text): a high
 * surrogate escape with the low one after it, a lone high or low one, or any other escape.
 */
const JSON_ESCAPE =
  /\\u[dD][89abAB][0-9a-fA-F]{2}(?:\\u[dD][c-fC-F][0-9a-fA-F]{2})?|\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\[\s\S]/g;

/** `text` with each lone surrogate replaced by U+FFFD (what a UTF-8 decoder makes of one). */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, "\uFFFD");
}

/**
 * JSON text (a tool call's arguments as the model wrote them) with each lone surrogate, raw or
 * as an escape (`"\ud83c"`, which parses into one), made `\ufffd`: the arguments are parsed for
 * the tool and sent back parsed by some APIs (Anthropic's `input`), where it would be refused.
 */
export function wellFormedJson(text: string): string {
  return wellFormed(text).replace(JSON_ESCAPE, (sequence) =>
    sequence.length === 6 && /^\\u[dD][89a-fA-F]/.test(sequence) ? "\\ufffd" : sequence,
  );
}

/** `value` with each string in it well-formed; the same object when nothing needed it. */
export function wellFormedValue<T>(value: T): T {
  if (typeof value === "string") return wellFormed(value) as T;
  if (typeof value !== "object" || value === null) return value;
  let copy: Record<string, unknown> | unknown[] | undefined;
  for (const [key, item] of Object.entries(value)) {
    const repaired = wellFormedValue(item);
    if (repaired === item) continue;
    copy ??= Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) };
    (copy as Record<string, unknown>)[key] = repaired;
  }
  return (copy ?? value) as T;
}

/**
 * Streamed text made well-formed piece by piece. A pair may come split across two pieces (a
 * server that escapes each half of an emoji on its own), so a high surrogate at a piece's end is
 * held until the next piece says whether its low half follows.
 */
export class WellFormedStream {
  private held = "";

  push(text: string): string {
    const buffer = this.held + text;
    const last = buffer.charCodeAt(buffer.length - 1);
    const endsInHigh = last >= 0xd800 && last <= 0xdbff;
    this.held = endsInHigh ? buffer.slice(-1) : "";
    return wellFormed(endsInHigh ? buffer.slice(0, -1) : buffer);
  }

  /** The end of the stream: a held high surrogate is alone. */
  flush(): string {
    const rest = this.held;
    this.held = "";
    return wellFormed(rest);
  }
}

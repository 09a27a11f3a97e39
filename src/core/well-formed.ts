// A lone UTF-16 surrogate (half of an emoji) is not valid Unicode: JSON.stringify writes it as
// `\udXXX`, and strict servers refuse the whole request, and every later one of the session.

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` with each lone surrogate replaced by U+FFFD (what a UTF-8 decoder makes of one). */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, "\uFFFD");
}

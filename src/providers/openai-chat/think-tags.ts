// Reasoning written inline as `<think>…</think>` at the start of the answer text, as DeepSeek-R1
// and Qwen/QwQ deployments without a reasoning parser do. Shown as thinking, as peers (pi,
// opencode, LiteLLM) do. Only a block that opens the reply counts: a `<think>` further on is the
// model talking about the tag, and stays text.
import { assertNever } from "../../core/messages.ts";

const OPEN = "<think>";
const CLOSE = "</think>";

/** A piece of streamed content, and whether it belongs to the thinking block. */
export interface ContentPiece {
  text: string;
  isThinking: boolean;
}

/** Splits streamed content into thinking and text; holds back only what may be half a tag. */
export class ThinkTagSplitter {
  private state: "start" | "thinking" | "after_thinking" | "text" = "start";
  private held = "";

  push(text: string): ContentPiece[] {
    this.held += text;
    const pieces: ContentPiece[] = [];
    while (this.held) {
      switch (this.state) {
        case "start": {
          const lead = this.held.trimStart();
          if (lead.startsWith(OPEN)) {
            this.held = lead.slice(OPEN.length);
            this.state = "thinking";
            break;
          }
          if (OPEN.startsWith(lead)) return pieces; // maybe the tag, not complete yet
          this.state = "text";
          break;
        }
        case "thinking": {
          const close = this.held.indexOf(CLOSE);
          if (close >= 0) {
            pieces.push({ text: this.held.slice(0, close), isThinking: true });
            this.held = this.held.slice(close + CLOSE.length);
            this.state = "after_thinking";
            break;
          }
          const keep = partialTagLength(this.held, CLOSE);
          pieces.push({ text: this.held.slice(0, this.held.length - keep), isThinking: true });
          this.held = this.held.slice(this.held.length - keep);
          return pieces;
        }
        case "after_thinking": {
          // The blank lines between the block and the answer belong to neither.
          this.held = this.held.trimStart();
          if (this.held) this.state = "text";
          break;
        }
        case "text":
          pieces.push({ text: this.held, isThinking: false });
          this.held = "";
          break;
        default:
          assertNever(this.state);
      }
    }
    return pieces;
  }

  /** The end of the content: what was held back. An unclosed block stays thinking (the reply was cut inside it). */
  flush(): ContentPiece[] {
    const held = this.held;
    this.held = "";
    if (!held) return [];
    return [{ text: held, isThinking: this.state === "thinking" }];
  }
}

/** The length of the longest end of `text` that is a beginning of `tag`. */
function partialTagLength(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (tag.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}

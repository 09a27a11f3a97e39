import type { AgentEvent } from "../core/events.ts";
import { textOf, toolCallsOf } from "../core/messages.ts";
import { paletteFor, type Palette } from "./colors.ts";
import { Spinner } from "./spinner.ts";

/** Lines of a tool's output shown in the trace; the rest is summarised. */
const TRACE_OUTPUT_LINES = 4;
const TRACE_LINE_CHARS = 160;

export interface RendererOptions {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  /**
   * `stream`: replies appear on stdout as they arrive (chat).
   * `final`: stdout gets only the last reply's text, so `> answer.txt` works (one-shot);
   * earlier replies go to the trace.
   */
  replies: "stream" | "final";
  /** Progress, thinking and tool traces go to stderr only when it is a terminal. */
  showTrace: boolean;
}

/** Draws the agent's events for a person. One instance per run or chat. */
export class TerminalRenderer {
  private readonly colors: Palette;
  private readonly spinner: Spinner;
  private atLineStart = true;
  private isThinking = false;

  constructor(private readonly options: RendererOptions) {
    this.colors = paletteFor(options.stderr, options.env);
    this.spinner = new Spinner(options.stderr);
  }

  handle(event: AgentEvent): void {
    switch (event.type) {
      case "start":
      case "usage":
        break;
      case "turn_start":
        if (this.options.showTrace) this.spinner.start();
        break;
      case "thinking_delta":
        this.spinner.stop();
        if (!this.options.showTrace) break;
        if (!this.isThinking) this.trace(this.colors.dim("thinking: "));
        this.isThinking = true;
        this.trace(this.colors.dim(event.text));
        break;
      case "text_delta":
        this.spinner.stop();
        this.endThinking();
        if (this.options.replies === "stream") this.write(this.options.stdout, event.text);
        break;
      case "message":
        if (event.message.role === "assistant") this.endReply(toolCallsOf(event.message).length > 0, textOf(event.message));
        break;
      case "tool_start":
        this.spinner.stop();
        this.traceLine(this.colors.cyan(firstLine(event.summary)));
        break;
      case "tool_end":
        this.showToolEnd(event);
        break;
      case "retry":
        this.spinner.stop();
        this.traceLine(this.colors.yellow(`retrying in ${(event.delayMs / 1000).toFixed(1)}s (attempt ${event.attempt}): ${event.error}`));
        break;
      case "done":
        this.spinner.stop();
        this.endThinking();
        if (this.options.replies === "final" && event.reason === "stop" && event.answer) this.write(this.options.stdout, event.answer.endsWith("\n") ? event.answer : `${event.answer}\n`);
        else this.newline(this.options.stdout);
        if (event.error) this.options.stderr.write(`${this.colors.red("error:")} ${event.error}\n`);
        else if (event.reason === "aborted" && this.options.showTrace) this.traceLine(this.colors.yellow("interrupted"));
        break;
      default: {
        const unhandled: never = event;
        return unhandled;
      }
    }
  }

  /** Stops the waiting indicator (before something else writes to the terminal). */
  pause(): void {
    this.spinner.stop();
  }

  private endReply(hasToolCalls: boolean, text: string): void {
    this.endThinking();
    if (this.options.replies === "stream") {
      this.newline(this.options.stdout);
      return;
    }
    // In one-shot mode a reply that calls tools is not the answer: its text is progress.
    if (hasToolCalls && text.trim()) this.traceLine(this.colors.dim(text.trim()));
  }

  private showToolEnd(event: Extract<AgentEvent, { type: "tool_end" }>): void {
    if (!this.options.showTrace) return;
    const lines = event.content.split("\n");
    const shown = lines.slice(0, TRACE_OUTPUT_LINES).map((line) => `  ${truncate(line, TRACE_LINE_CHARS)}`);
    if (lines.length > TRACE_OUTPUT_LINES) shown.push(`  … ${lines.length - TRACE_OUTPUT_LINES} more lines`);
    const body = shown.join("\n");
    this.traceLine(event.isError ? this.colors.red(body) : this.colors.dim(body));
  }

  private endThinking(): void {
    if (!this.isThinking) return;
    this.isThinking = false;
    this.trace("\n");
  }

  private trace(text: string): void {
    if (this.options.showTrace) this.write(this.options.stderr, text);
  }

  private traceLine(text: string): void {
    if (!this.options.showTrace) return;
    this.newline(this.options.stderr);
    this.write(this.options.stderr, `${text}\n`);
  }

  private write(stream: NodeJS.WriteStream, text: string): void {
    if (!text) return;
    stream.write(text);
    this.atLineStart = text.endsWith("\n");
  }

  private newline(stream: NodeJS.WriteStream): void {
    if (!this.atLineStart) this.write(stream, "\n");
  }
}

function firstLine(text: string): string {
  const [first, ...rest] = text.split("\n");
  return rest.length > 0 ? `${first} …` : first;
}

function truncate(line: string, max: number): string {
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

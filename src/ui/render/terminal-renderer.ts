import type { TodoItem } from "../../core/event-schema.ts";
import type { AgentEvent } from "../../core/events.ts";
import { assertNever, textOf, toolCallsOf } from "../../core/messages.ts";
import { isColorOn, type Palette, paletteFor, wantsColor } from "../colors.ts";
import { foldToolOutput, renderDiff, summarizeDiff } from "../diff-render.ts";
import type { InputView } from "../editor/draw-input.ts";
import type { ShownDiffs } from "../shown-diffs.ts";
import { forTerminal } from "../terminal-safe.ts";
import { firstLine, wrapToWidth } from "../text-width.ts";
import { LiveOutput } from "./live-output.ts";
import { MarkdownStream } from "./markdown-stream.ts";
import { columnAfter, PinnedInput } from "./pinned-input.ts";
import { Spinner } from "./spinner.ts";
import { compactionLine, retryLine } from "./status-lines.ts";
import { SubagentBlocks } from "./subagent-blocks.ts";
import { TodoPanel } from "./todo-panel.ts";
import { ToolClock } from "./tool-clock.ts";

/** Assumed width when the stream does not say (not a TTY). */
const DEFAULT_COLUMNS = 80;

interface RendererOptions {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  /**
   * `stream`: replies appear on stdout as they arrive (chat). `final`: stdout gets only the last
   * reply's text, so `> answer.txt` works (one-shot); earlier replies go to the trace.
   */
  replies: "stream" | "final";
  /** Progress, thinking and tool traces go to stderr only when it is a terminal. */
  showTrace: boolean;
  /** Diffs the approval question showed: their results are one line (`+3 -1 x.ts`), not the diff again. */
  shownDiffs?: ShownDiffs;
}

/** Draws the agent's events for a person. One instance per run or chat. */
export class TerminalRenderer {
  private readonly colors: Palette;
  private readonly spinner: Spinner;
  private atLineStart = true;
  /** What was written since the last line break (where the cursor stands is worked out from it). */
  private tail = "";
  /** An approval question is on the screen: the subagents' blocks wait until it is answered. */
  private isQuestionOpen = false;
  /** Subagents' lines that came while a question was open (summaries; in plain mode their calls too). */
  private readonly heldLines: string[] = [];
  /** The last thing written was a tool's output: the next reply or thinking starts after a blank line. */
  private isAfterToolOutput = false;
  private isThinking = false;
  /** Chat replies as Markdown (raw text when stdout is not a colour terminal). */
  private readonly markdown: MarkdownStream;
  /** A running command's last output lines, under the clock. */
  private readonly liveOutput = new LiveOutput();
  /** The model's plan, pinned below the output on stderr. */
  private readonly todo: TodoPanel;
  /** Running subagents, each a live block pinned below the plan. */
  private readonly subagents: SubagentBlocks;
  /** How long the running tools have run, on the line below the output. */
  private readonly clock: ToolClock;
  /** The chat's input line while a turn runs, below everything else (pinned-input.ts). */
  private readonly input: PinnedInput;

  constructor(private readonly options: RendererOptions) {
    this.colors = paletteFor(options.stderr, options.env);
    this.spinner = new Spinner(options.stderr);
    this.todo = new TodoPanel(options.stderr, this.colors, isColorOn(options.stderr, options.env));
    this.subagents = new SubagentBlocks(options.stderr, this.colors, isColorOn(options.stderr, options.env));
    this.input = new PinnedInput(options.stderr, this.colors, () => this.inputColumn());
    this.clock = new ToolClock(
      options.stderr,
      this.colors,
      options.showTrace && isColorOn(options.stderr, options.env),
      () => this.atLineStart,
      (id, columns) => this.liveOutput.linesFor(id, columns),
    );
    // Columns are read at each use: a resized terminal gets the new width from the next line on.
    this.markdown = new MarkdownStream({
      isStyled: wantsColor(options.stdout, options.env),
      columns: () => options.stdout.columns || DEFAULT_COLUMNS,
    });
  }

  handle(untrusted: AgentEvent): void {
    const event = forTerminal(untrusted);
    switch (event.type) {
      case "start":
      case "usage":
      case "call_usage": // counted by the call's usage event
        break;
      case "turn_start":
        // The spinner redraws with escape sequences: none for TERM=dumb or NO_COLOR.
        if (this.options.showTrace && isColorOn(this.options.stderr, this.options.env)) this.spinner.start();
        break;
      case "prompt_progress": // a local model reading a long prompt: how far it is (local-progress.ts)
        this.spinner.setDetail(
          `reading the prompt ${event.done.toLocaleString("en-US")}/${event.total.toLocaleString("en-US")} tokens`,
        );
        break;
      case "thinking_delta":
        this.spinner.stop();
        if (!this.options.showTrace) break;
        if (!this.isThinking) {
          this.separateFromToolOutput();
          this.trace(this.colors.dim("thinking: "));
        }
        this.isThinking = true;
        this.trace(this.colors.dim(event.text));
        break;
      case "text_delta":
        this.endThinking();
        // Markdown holds back what could still change (markdown-stream.ts), so the spinner runs until a word is ready.
        if (this.options.replies === "stream") this.writeReply(this.markdown.push(event.text));
        else this.spinner.stop();
        break;
      case "message":
        if (event.message.role === "assistant")
          this.endReply(toolCallsOf(event.message).length > 0, textOf(event.message));
        break;
      case "tool_start":
        this.spinner.stop();
        // A task call's child has its own live block with a clock (subagent-blocks.ts).
        if (this.subagents.claimTaskCall(event)) break;
        this.traceLine(this.colors.cyan(this.fit(firstLine(event.summary))));
        this.clock.start(event.id, event.summary);
        break;
      case "tool_output":
        this.liveOutput.set(event.id, event.lines);
        this.clock.redraw(event.id);
        break;
      case "tool_end": {
        // A call that never started (invalid arguments, refused) ends while the spinner still waits on the line.
        this.spinner.stop();
        const untold = this.subagents.untoldCall(event.id);
        if (untold) this.traceLine(this.colors.cyan(untold));
        this.liveOutput.end(event.id); // folded: the trace below takes its place
        this.clock.end(event.id);
        this.showToolEnd(event);
        break;
      }
      case "compaction":
        this.spinner.stop();
        this.traceLine(this.colors.dim(compactionLine(event)));
        break;
      case "compaction_stopped":
        this.spinner.stop();
        this.traceLine(this.colors.yellow(`compaction stopped for this run: ${event.reason}`));
        break;
      case "retry":
        this.spinner.stop();
        if (event.discardPartial) this.discardPartialReply();
        this.traceLine(this.colors.yellow(retryLine(event)));
        break;
      case "todo":
        if (!this.options.showTrace) break;
        this.spinner.stop();
        this.input.erase();
        this.subagents.erase(); // drawn below the plan
        this.todo.update(event.items, this.atLineStart);
        this.subagents.refresh(this.atLineStart);
        this.input.redraw();
        break;
      case "subagent":
        // Folded: a live block per child (src/ui/render/subagent-blocks.ts); its answer comes back as the task call's result.
        if (!this.options.showTrace) break;
        this.spinner.stop();
        if (this.isQuestionOpen) this.heldLines.push(...this.subagents.record(event));
        else {
          for (const line of this.subagents.record(event)) this.traceLine(line);
          this.subagents.refresh(this.atLineStart);
          this.input.redraw();
        }
        break;
      case "done": {
        this.spinner.stop();
        this.clock.stop();
        this.input.close(); // the chat's prompt takes its place
        this.endThinking();
        if (this.options.replies === "stream") this.writeReply(this.markdown.flush());
        // A one-shot answer, or a plan (plan mode: the chat shows it too, then its choices), on a colour terminal is Markdown; piped, the raw text.
        const answer = event.plan ?? event.answer;
        if ((this.options.replies === "final" || event.plan) && event.reason === "stop" && answer) {
          this.separateFromToolOutput();
          this.write(this.options.stdout, this.markdown.push(answer.endsWith("\n") ? answer : `${answer}\n`));
          this.write(this.options.stdout, this.markdown.flush());
        } else this.newline(this.options.stdout);
        if (event.error) this.options.stderr.write(`${this.fit(`${this.colors.red("error:")} ${event.error}`)}\n`);
        else if (event.stopReason === "length")
          this.options.stderr.write(
            `${this.fit(`${this.colors.yellow("warning:")} the reply was cut off at the output limit; a larger --max-tokens lets it finish`)}\n`,
          );
        else if (event.reason === "aborted" && this.options.showTrace)
          this.traceLine(this.colors.yellow("interrupted"));
        this.subagents.leave();
        this.todo.leave();
        this.isAfterToolOutput = false; // the next turn starts after a prompt
        break;
      }
      default:
        return assertNever(event);
    }
  }

  /** The session's plan before a run (a resumed session's, or none after /clear): pinned from the run's first output on, unless finished. */
  setPlan(items: readonly TodoItem[]): void {
    if (this.options.showTrace) this.todo.restore(items);
  }

  /** What `write` writes to the terminal itself (a late setup warning): above the pinned blocks, drawn again below it. */
  above(write: () => void): void {
    const showSpinner = this.spinner.hide(); // still waiting for the model: it goes on below the line
    this.newline(this.options.stderr);
    this.write(this.options.stderr, write);
    showSpinner();
  }

  /**
   * The chat's input line, drawn below the pinned block from now until the turn ends (`done`, or
   * `closeInput`); `showInput` gives what it shows. Only where the panels are pinned too.
   */
  openInput(): void {
    if (this.options.showTrace && isColorOn(this.options.stderr, this.options.env)) this.input.open();
  }

  /** The input as it now stands (typed, edited), redrawn in place when it may be drawn now. */
  showInput(view: InputView): void {
    this.input.show(view);
  }

  closeInput(): void {
    this.input.close();
  }

  /** Stops the waiting indicator and the tool clock (before something else, a question, writes to the terminal). */
  pause(): void {
    this.spinner.stop();
    this.clock.pause();
    this.input.erase();
    this.subagents.erase();
    this.todo.erase();
  }

  /**
   * Clears the screen's live parts for a question (an approval). Other children go on while it is
   * asked: their blocks stay off the screen and the lines of those that end wait, so the question
   * stays whole; the function returned shows them once it is answered.
   */
  holdForQuestion(): () => void {
    this.pause();
    this.isQuestionOpen = true;
    return () => {
      this.isQuestionOpen = false;
      for (const line of this.heldLines.splice(0)) this.traceLine(line);
      if (!this.atLineStart || !this.options.showTrace) return;
      this.todo.draw();
      this.subagents.draw();
      this.input.redraw();
    };
  }

  /**
   * A failed attempt's deltas are void (the retry starts the reply over). What is on screen
   * stays, since scrollback cannot be taken back, but it is marked, and the line held back for
   * Markdown is dropped rather than shown.
   */
  private discardPartialReply(): void {
    this.endThinking();
    if (this.options.replies !== "stream") return; // one-shot: stdout gets only the final answer
    this.markdown.flush();
    this.newline(this.options.stdout);
    this.traceLine(this.colors.dim("(the partial reply above was cut off; it starts over)"));
  }

  private endReply(hasToolCalls: boolean, text: string): void {
    this.endThinking();
    if (this.options.replies === "stream") {
      this.writeReply(this.markdown.flush());
      this.newline(this.options.stdout);
      return;
    }
    // In one-shot mode a reply that calls tools is not the answer: its text is progress.
    if (hasToolCalls && text.trim()) this.traceLine(this.colors.dim(text.trim()));
  }

  private showToolEnd(event: Extract<AgentEvent, { type: "tool_end" }>): void {
    if (!this.options.showTrace) return;
    const columns = this.options.stderr.columns || DEFAULT_COLUMNS;
    if (event.diff && !event.isError)
      this.traceLine(
        this.options.shownDiffs?.take(event.diff)
          ? `  ${summarizeDiff(event.diff, this.colors)}`
          : renderDiff(event.diff, this.colors, columns),
      );
    else this.traceLine(this.toolOutput(event, columns));
    if (event.notice) this.traceLine(this.colors.yellow(this.fit(event.notice)));
    this.isAfterToolOutput = true;
  }

  private toolOutput(event: Extract<AgentEvent, { type: "tool_end" }>, columns: number): string {
    const body = foldToolOutput(event, columns);
    return event.isError ? this.colors.red(body) : this.colors.dim(body);
  }

  /** One blank line between a tool's output and the reply after it (on the trace, so `> answer.txt` gets none). */
  private separateFromToolOutput(): void {
    if (this.isAfterToolOutput) this.trace("\n");
  }

  private writeReply(text: string): void {
    if (!text) return;
    this.spinner.stop();
    this.separateFromToolOutput();
    this.write(this.options.stdout, text);
  }

  private endThinking(): void {
    if (!this.isThinking) return;
    this.isThinking = false;
    this.trace("\n");
  }

  private trace(text: string): void {
    if (this.options.showTrace) this.write(this.options.stderr, text);
  }

  /** A message line wrapped at words to stderr's width, at a terminal (piped, a line stays one line). */
  private fit(text: string): string {
    const columns = this.options.stderr.columns;
    return columns ? wrapToWidth(text, columns) : text;
  }

  private traceLine(text: string): void {
    if (!this.options.showTrace) return;
    this.newline(this.options.stderr);
    this.write(this.options.stderr, `${text}\n`);
  }

  /** `text`, or a function that writes whole lines itself (`above`), with the pinned blocks out of its way. */
  private write(stream: NodeJS.WriteStream, text: string | (() => void)): void {
    if (!text) return;
    this.isAfterToolOutput = false;
    this.clock.hide();
    this.input.erase(); // the lowest: each erase starts where the block below it began
    this.subagents.erase();
    this.todo.erase();
    if (typeof text === "function") {
      text();
      text = "\n"; // it wrote whole lines: the cursor is at a line's start
    } else stream.write(text);
    this.clock.resume();
    this.atLineStart = text.endsWith("\n");
    const lastBreak = text.lastIndexOf("\n");
    this.tail = lastBreak >= 0 ? text.slice(lastBreak + 1) : this.tail + text;
    if (!this.atLineStart) return this.input.redraw(); // under the line being written, the panels at its end
    if (!this.options.showTrace) return;
    this.todo.draw();
    if (this.isQuestionOpen) return;
    this.subagents.draw();
    this.input.redraw();
  }

  /**
   * Where the input line may go now: not while a question is asked; under the panels at a line's
   * start; right under the line while a reply or thinking streams (the cursor put back at its
   * end), unless where that end is cannot be known.
   */
  private inputColumn(): number | undefined {
    if (this.isQuestionOpen) return undefined;
    return this.atLineStart ? 0 : columnAfter(this.tail, this.options.stderr.columns || DEFAULT_COLUMNS);
  }

  private newline(stream: NodeJS.WriteStream): void {
    if (!this.atLineStart) this.write(stream, "\n");
  }
}

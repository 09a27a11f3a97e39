// Subagents on the terminal. Each running child is a folded, live block pinned at the bottom of
// stderr (below the plan): a header with the task call (agent and what it was asked), how long it
// has run, its tool calls and tokens, then its latest activity lines; redrawn in place when its
// events come and every second for the clock. Several children at once each get a block. When a
// child ends, its block gives way to one summary line in the scrollback (✓ or ✗, the call, calls,
// tokens, time). Without escape sequences (NO_COLOR, TERM=dumb) nothing is pinned: each call a
// child makes is one plain line, and its end the same summary line.
import type { AgentEvent } from "../core/events.ts";
import { formatDuration, formatTokens } from "../core/helpers.ts";
import type { Usage } from "../core/messages.ts";
import type { Palette } from "./colors.ts";
import { PinnedLines } from "./pinned-lines.ts";
import { fitWidth } from "./text-width.ts";

type SubagentEvent = Extract<AgentEvent, { type: "subagent" }>;
type ChildDone = Extract<SubagentEvent["event"], { type: "done" }>;

/** A child's latest activity lines under its header. */
const MAX_ACTIVITY_LINES = 3;
/** Blocks drawn at most (the task tool runs 4 at once); more children are counted on one line. */
const MAX_SHOWN_BLOCKS = 4;
/** How often the blocks' clocks redraw. */
const TICK_MS = 1000;
/** Assumed width when the stream does not say. */
const DEFAULT_COLUMNS = 80;

/** What a running child's block shows. */
interface RunningChild {
  title: string;
  startedAt: number;
  /** Its tool calls' ids: one that could not start (an unknown tool) has only a tool_end. */
  calls: Set<string>;
  tokens: number;
  activity: string[];
}

/** The running subagents of one renderer, and their pinned blocks. */
export class SubagentBlocks {
  /** Each task call's summary (`task (reviewer): find main`), the title of the child it starts. */
  private readonly titles = new Map<string, string>();
  /** By the id of the task call that started each child, in the order they started. */
  private readonly running = new Map<string, RunningChild>();
  private readonly pinned: PinnedLines;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly colors: Palette,
    /** Whether escape sequences may move the cursor (else plain lines only). */
    private readonly isPinnable: boolean,
  ) {
    this.pinned = new PinnedLines(stream);
  }

  /**
   * Notes a task call's summary as its child's title. True when the child's block will show the
   * call (pinned), so the renderer leaves out the call's own line: the block, then its summary
   * line, stand for it.
   */
  claimTaskCall(event: Extract<AgentEvent, { type: "tool_start" }>): boolean {
    if (event.name !== "task") return false;
    this.titles.set(event.id, firstLine(event.summary));
    return this.isPinnable;
  }

  /** A child's event; returns the lines for the scrollback (a finished child's summary; plain mode: its calls). */
  record(wrapped: SubagentEvent): string[] {
    const { event, parentToolCallId: id } = wrapped;
    const child = this.running.get(id) ?? this.begin(id, wrapped.agent);
    switch (event.type) {
      case "tool_start": {
        if (event.name === "task") this.titles.set(event.id, firstLine(event.summary)); // a grandchild's title
        child.calls.add(event.id);
        child.activity = [...child.activity, firstLine(event.summary)].slice(-MAX_ACTIVITY_LINES);
        return this.isPinnable ? [] : [this.colors.dim(`  ${wrapped.agent} › ${firstLine(event.summary)}`)];
      }
      case "tool_end":
        child.calls.add(event.id);
        if (event.isError)
          child.activity = [...child.activity, `✗ ${firstLine(event.content)}`].slice(-MAX_ACTIVITY_LINES);
        return [];
      case "usage":
        child.tokens += tokensOf(event.usage);
        return [];
      case "done":
        this.end(id);
        return [this.summaryOf(child, event)];
      case "start":
      case "turn_start":
      case "text_delta":
      case "thinking_delta":
      case "message":
      case "retry":
      case "compaction":
      case "todo":
        return [];
      default: {
        const unhandled: never = event;
        return unhandled;
      }
    }
  }

  /** Shows the blocks as they now stand: redrawn in place, or drawn when the cursor is at the start of a line. */
  refresh(atLineStart: boolean): void {
    if (!this.isPinnable) return;
    if (this.pinned.isDrawn) this.pinned.replace(this.lines());
    else if (atLineStart) this.draw();
  }

  /** Takes the blocks off the screen before something else is written. */
  erase(): void {
    this.pinned.erase();
  }

  /** Puts the blocks back below what was written (only at the start of a line). */
  draw(): void {
    if (this.isPinnable) this.pinned.draw(this.lines());
  }

  /** The run ended: no child runs on (an interrupted run's children ended with it). */
  leave(): void {
    this.pinned.erase();
    this.running.clear();
    this.titles.clear();
    this.stopClock();
  }

  private begin(id: string, agent: string): RunningChild {
    const child: RunningChild = {
      title: this.titles.get(id) ?? agent,
      startedAt: Date.now(),
      calls: new Set(),
      tokens: 0,
      activity: [],
    };
    this.running.set(id, child);
    if (this.isPinnable && !this.timer) {
      // The clock redraws only blocks on screen: erased ones (a question is asked) wait for the next write.
      this.timer = setInterval(() => this.pinned.replace(this.lines()), TICK_MS);
      this.timer.unref();
    }
    return child;
  }

  private end(id: string): void {
    this.running.delete(id);
    this.titles.delete(id);
    if (this.running.size === 0) this.stopClock();
  }

  private stopClock(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private lines(): string[] {
    const columns = this.stream.columns || DEFAULT_COLUMNS;
    const children = [...this.running.values()];
    const shown = children.slice(0, MAX_SHOWN_BLOCKS).flatMap((child) => {
      const header = `▸ ${child.title}`;
      const counts = ` · ${formatDuration(Date.now() - child.startedAt)} · ${counted(child.calls.size, "call")} · ${formatTokens(child.tokens)} tokens`;
      return [
        `${this.colors.cyan(fitWidth(header, columns - counts.length))}${this.colors.dim(counts)}`,
        ...child.activity.map((line) => this.colors.dim(`    ${fitWidth(line, columns - 4)}`)),
      ];
    });
    const hidden = children.length - MAX_SHOWN_BLOCKS;
    return hidden > 0 ? [...shown, this.colors.dim(`  … ${counted(hidden, "more subagent")} running`)] : shown;
  }

  private summaryOf(child: RunningChild, done: ChildDone): string {
    const counts = `${counted(child.calls.size, "call")} · ${formatTokens(tokensOf(done.usage))} tokens · ${formatDuration(Date.now() - child.startedAt)}`;
    switch (done.reason) {
      case "stop":
        return `${this.colors.green("✓")} ${child.title} ${this.colors.dim(`· ${counts}`)}`;
      case "aborted":
      case "max_turns":
      case "error": {
        const why = done.reason === "aborted" ? "interrupted" : done.reason === "max_turns" ? "turn limit" : "failed";
        return `${this.colors.red("✗")} ${child.title} ${this.colors.dim(`· ${why} · ${counts}`)}`;
      }
      default: {
        const unhandled: never = done.reason;
        return unhandled;
      }
    }
  }
}

/** Every token a call spent, read from the cache or not. */
function tokensOf(usage: Usage): number {
  return usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function firstLine(text: string): string {
  const [first, ...rest] = text.split("\n");
  return rest.length > 0 ? `${first} …` : first;
}

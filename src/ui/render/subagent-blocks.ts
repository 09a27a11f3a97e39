// Subagents on the terminal. Each running child is a folded, live block pinned at the bottom of
// stderr (below the plan): a header with the task call (agent and what it was asked), how long it
// has run, its tool calls and tokens, then its latest activity lines; redrawn in place when its
// events come and every second for the clock. Several children at once each get a block. When a
// child ends, its block gives way to one summary line in the scrollback (✓ or ✗, the call, calls,
// tokens, time). Without escape sequences (NO_COLOR, TERM=dumb) nothing is pinned: each call a
// child makes is one plain line, and its end the same summary line.
import type { AgentEvent } from "../../core/events.ts";
import type { Usage } from "../../core/messages.ts";
import { countOf, formatDuration, formatTokens } from "../../shared/helpers.ts";
import type { Palette } from "../colors.ts";
import { firstLine, fitWidth, visibleWidth } from "../text-width.ts";
import { PinnedLines } from "./pinned-lines.ts";

type SubagentEvent = Extract<AgentEvent, { type: "subagent" }>;
type ChildDone = Extract<SubagentEvent["event"], { type: "done" }>;

/** A child's latest activity lines under its header. */
const MAX_ACTIVITY_LINES = 3;
/** Blocks drawn at most (the task tool runs 4 at once); more children are counted on one line. */
const MAX_SHOWN_BLOCKS = 4;
/** How often the blocks' clocks redraw. */
const TICK_MS = 1000;
/** Assumed size when the stream does not say. */
const DEFAULT_COLUMNS = 80;
const DEFAULT_ROWS = 24;

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
  /** Task calls whose line waits for their child's block (pinned only); told at their end if no child began. */
  private readonly untold = new Set<string>();
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
   * call (pinned), so the renderer holds back the call's own line: the block, then its summary
   * line, stand for it. A call whose child never began (an unknown agent; a replayed transcript)
   * gets its line back from `untoldCall` at its end.
   */
  claimTaskCall(event: Extract<AgentEvent, { type: "tool_start" }>): boolean {
    if (event.name !== "task") return false;
    this.titles.set(event.id, firstLine(event.summary));
    if (this.isPinnable) this.untold.add(event.id);
    return this.isPinnable;
  }

  /** A claimed task call's line, at the call's end, when no child's block stood for it. */
  untoldCall(id: string): string | undefined {
    if (!this.untold.delete(id)) return undefined;
    const title = this.titles.get(id);
    this.titles.delete(id);
    return title;
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
      case "prompt_progress":
      case "call_usage":
      case "tool_output": // a child's block shows its calls, not their output
      case "message":
      case "retry":
      case "compaction":
      case "compaction_stopped":
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
    this.untold.clear();
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
    this.untold.delete(id);
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
    const blocks = children.slice(0, MAX_SHOWN_BLOCKS);
    // Half the screen at most, so the cursor can always climb back over the blocks to redraw them.
    const rows = Math.floor((this.stream.rows || DEFAULT_ROWS) / 2);
    const activityLines = Math.max(0, Math.min(MAX_ACTIVITY_LINES, Math.floor(rows / blocks.length) - 1));
    const shown = blocks.flatMap((child) => [
      this.headerOf(child, columns),
      ...child.activity
        .slice(Math.max(0, child.activity.length - activityLines))
        .map((line) => this.colors.dim(`    ${fitWidth(line, columns - 4)}`)),
    ]);
    const hidden = children.length - MAX_SHOWN_BLOCKS;
    return hidden > 0 ? [...shown, this.colors.dim(`  … ${countOf(hidden, "more subagent")} running`)] : shown;
  }

  /** `▸ task: <prompt> · 4.2s · 2 calls · 1.2k tokens`, the title cut to leave room for the counts. */
  private headerOf(child: RunningChild, columns: number): string {
    const title = `▸ ${child.title}`;
    const counts = ` · ${formatDuration(Date.now() - child.startedAt)} · ${countOf(child.calls.size, "call")} · ${formatTokens(child.tokens)} tokens`;
    if (visibleWidth(counts) > columns / 2) return this.colors.cyan(fitWidth(`${title}${counts}`, columns));
    return `${this.colors.cyan(fitWidth(title, columns - visibleWidth(counts)))}${this.colors.dim(counts)}`;
  }

  private summaryOf(child: RunningChild, done: ChildDone): string {
    const counts = `${countOf(child.calls.size, "call")} · ${formatTokens(tokensOf(done.usage))} tokens · ${formatDuration(Date.now() - child.startedAt)}`;
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

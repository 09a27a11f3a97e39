// The dim line after each chat turn: model, how full the context is, and the session's tokens and cost.
import type { AgentEvent } from "../core/events.ts";
import { addSpent, addUsage, EMPTY_USAGE, type ModelUsage, type Usage } from "../core/messages.ts";
import { formatTokens } from "../shared/helpers.ts";

/** What the status line needs from outside the UI (the CLI wiring knows models and prices). */
export interface StatusLineSources {
  /** The model's context window in tokens. */
  contextWindow(model: string): number;
  /** The cost of tokens spent on these models, formatted (`$0.0042`), or undefined when a price is unknown. */
  formatCost?(spent: readonly ModelUsage[]): string | undefined;
  /** The thinking level set for the session (`high`, `4096 tokens`), or undefined when none is. */
  thinking?(): string | undefined;
  /** The approval mode, when not the default (`plan mode`). */
  mode?(): string | undefined;
  /** How many background processes are running (bash `background: true`). */
  runningInBackground?(): number;
  /**
   * The session's tokens by model as its record has them (a resumed session's earlier turns
   * included): the one total /cost prints too. Without it, the tokens of this chat's own events.
   */
  spent?(): readonly ModelUsage[];
}

/** Follows a chat's events and formats the status line for the turn just ended. */
export class SessionStatus {
  private model = "";
  private lastCall: Usage | undefined;
  private spent: ModelUsage[] = [];

  constructor(private readonly sources: StatusLineSources) {}

  record(event: AgentEvent): void {
    if (event.type === "start") this.model = event.model;
    // A fallback model (wiring/fallback-models.ts) takes over mid-turn: the reply names who wrote it.
    if (event.type === "message" && event.message.role === "assistant" && event.message.source)
      this.model = event.message.source.model;
    // The context's fill comes from the last reply; the totals from every usage event (subagents' too).
    if (event.type === "message" && event.message.role === "assistant" && event.message.usage)
      this.lastCall = event.message.usage;
    if (event.type === "usage") {
      this.spent = addSpent(this.spent, event.model ?? this.model, event.usage);
    }
  }

  /**
   * `model · plan mode · thinking high · context 12% of 128k · session 15k in, 2.1k out · $0.0420 · 2 in background (/ps)`;
   * undefined before any usage.
   */
  format(): string | undefined {
    if (!this.lastCall) return undefined;
    const window = this.sources.contextWindow(this.model);
    // The next request carries everything the last one did plus its reply.
    const used = this.lastCall.input + this.lastCall.cacheRead + this.lastCall.cacheWrite + this.lastCall.output;
    const percent = (used / window) * 100;
    const context = `context ${percent > 0 && percent < 1 ? "<1" : Math.round(percent)}% of ${formatTokens(window)}`;
    const spent = this.sources.spent?.() ?? this.spent;
    const total = spent.reduce((sum, entry) => addUsage(sum, entry.usage), EMPTY_USAGE);
    const input = total.input + total.cacheRead + total.cacheWrite;
    const tokens = `session ${formatTokens(input)} in, ${formatTokens(total.output)} out`;
    const cost = this.sources.formatCost?.(spent);
    const thinking = this.sources.thinking?.();
    const running = this.sources.runningInBackground?.() ?? 0;
    const mode = this.sources.mode?.();
    return [
      this.model,
      ...(mode ? [mode] : []),
      ...(thinking ? [`thinking ${thinking}`] : []),
      context,
      tokens,
      ...(cost ? [cost] : []),
      ...(running > 0 ? [`${running} in background (/ps)`] : []),
    ].join(" · ");
  }
}

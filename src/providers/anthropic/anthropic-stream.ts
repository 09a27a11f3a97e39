// Wire to neutral for the Anthropic Messages API: folds stream events into one assistant message.
// Pure (no I/O), so recorded streams can be replayed through it in tests.
import { type AssistantMessage, assertNever, type StopReason, type Usage } from "../../core/messages.ts";
import type { ModelEvent } from "../../core/provider.ts";
import { appendArguments } from "../../core/run-tools.ts";

/** The `api` our Anthropic replies carry; their thinking and server blocks go back only to this API. */
export const ANTHROPIC_API = "anthropic";

/**
 * The Messages API's `stop_reason` values (https://docs.anthropic.com/en/api/messages, "stop_reason"),
 * as @anthropic-ai/sdk 1.14 typed them: spelled out here, where that package was a dependency for this one type.
 */
type WireStopReason =
  | "end_turn"
  | "max_tokens"
  | "stop_sequence"
  | "tool_use"
  | "pause_turn"
  | "refusal"
  | "model_context_window_exceeded";

/** The parts of a Messages stream event we read; unknown event and block types are ignored. */
export interface AnthropicStreamEvent {
  type: string;
  index?: number;
  message?: { id?: string; model?: string; usage?: WireUsage | null };
  content_block?: WireBlock;
  delta?: {
    type?: string;
    text?: string;
    partial_json?: string;
    thinking?: string;
    signature?: string;
    stop_reason?: string | null;
    citation?: unknown;
    [key: string]: unknown;
  };
  usage?: WireUsage | null;
}

/** A content block as `content_block_start` (or a whole, non-streamed message) carries it. */
export interface WireBlock {
  type: string;
  [key: string]: unknown;
  text?: string;
  thinking?: string;
  signature?: string;
  data?: string;
  id?: string;
  name?: string;
  input?: unknown;
}

/** Messages API usage; `input_tokens` already excludes cache reads and writes. */
export interface WireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  /**
   * Server-side compaction and other multi-step turns: one entry per step. The top-level
   * counts then cover only the last step; the sum is what was billed.
   */
  iterations?: WireUsage[] | null;
}

const USAGE_KEYS = ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"] as const;

/** A whole (non-streamed) Messages API reply. */
export interface WireMessageReply {
  model?: string;
  content?: WireBlock[];
  stop_reason?: string | null;
  usage?: WireUsage | null;
}

/**
 * Server-side tools (`server_tool_use`, `*_tool_result`), compaction blocks and block types we
 * do not know are `opaque`: kept out of the neutral message, but kept whole (deltas applied) in
 * its providerData, because the API wants them back unchanged: after `pause_turn` the paused
 * content is how the server resumes, and a compaction block stands for the history it replaced.
 */
type Block =
  | { type: "text"; text: string; citations?: unknown[] }
  | { type: "thinking"; text: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; json: string; startInput: unknown }
  | { type: "opaque"; wire: WireBlock; json: string };

/** Accumulates one streamed reply. Feed it events in order, then call `finish()`. */
export class AnthropicStreamAccumulator {
  /** By stream index; a Map keeps content_block_start order. */
  private blocks = new Map<number, Block>();
  private toolCount = 0;
  private usage: WireUsage | undefined;
  private stopReason: string | null = null;
  private isStopped = false;
  private model: string | undefined;

  /** Folds one event in and returns the display events it carries. */
  add(event: AnthropicStreamEvent): ModelEvent[] {
    switch (event.type) {
      case "message_start":
        if (event.message?.model) this.model = event.message.model;
        this.mergeUsage(event.message?.usage); // the request's tokens, before any output (a call cut off counts them)
        return this.usage ? [{ type: "call_usage", usage: toUsage(this.usage) }] : [];
      case "content_block_start":
        return event.content_block ? this.startBlock(event.index ?? this.blocks.size, event.content_block) : [];
      case "content_block_delta":
        return this.addDelta(this.blocks.get(event.index ?? -1), event.delta ?? {});
      case "message_delta":
        if (event.delta?.stop_reason) this.stopReason = event.delta.stop_reason;
        this.mergeUsage(event.usage);
        return [];
      case "message_stop":
        this.isStopped = true;
        return [];
      default:
        // content_block_stop, ping, and event types added later carry nothing we keep.
        return [];
    }
  }

  /**
   * True once the reply is known whole: `message_stop` arrived, or the `message_delta` with
   * the stop reason did (nothing after it carries data; some recorded streams lose the
   * unterminated last event). A stream that stops before either was cut.
   */
  get isComplete(): boolean {
    return this.isStopped || this.stopReason !== null;
  }

  finish(): AssistantMessage {
    const content: AssistantMessage["content"] = [];
    const wire: WireBlock[] = [];
    for (const block of this.blocks.values()) {
      switch (block.type) {
        case "text":
          if (!block.text) break;
          content.push({ type: "text", text: block.text });
          wire.push({ type: "text", text: block.text, ...(block.citations ? { citations: block.citations } : {}) });
          break;
        case "thinking":
          if (block.signature) content.push({ type: "thinking", text: block.text, signature: block.signature });
          else if (block.text) content.push({ type: "thinking", text: block.text });
          if (block.signature) wire.push({ type: "thinking", thinking: block.text, signature: block.signature });
          break;
        case "redacted_thinking":
          content.push({ type: "thinking", text: "", redactedData: block.data });
          wire.push({ type: "redacted_thinking", data: block.data });
          break;
        case "tool_use": {
          // No input deltas (or only empty ones) means the input came whole in content_block_start.
          const call = {
            type: "tool_call" as const,
            id: block.id,
            name: block.name,
            arguments: block.json || JSON.stringify(block.startInput ?? {}),
          };
          content.push(call);
          wire.push({ type: "tool_use", id: block.id, name: block.name, input: parseInput(call.arguments) });
          break;
        }
        case "opaque":
          wire.push(block.json ? { ...block.wire, input: parseInput(block.json) } : block.wire);
          break;
        default:
          assertNever(block);
      }
    }
    const hasToolCalls = content.some((part) => part.type === "tool_call");
    const message: AssistantMessage = {
      role: "assistant",
      content,
      stopReason: toStopReason(this.stopReason as WireStopReason | null, hasToolCalls),
      api: ANTHROPIC_API,
    };
    if (this.model) message.model = this.model;
    if (this.usage) message.usage = toUsage(this.usage);
    // Only a reply with blocks the neutral message cannot hold carries its wire form along.
    if ([...this.blocks.values()].some((block) => block.type === "opaque")) message.providerData = { content: wire };
    return message;
  }

  private startBlock(index: number, wire: WireBlock): ModelEvent[] {
    switch (wire.type) {
      case "text": {
        const text = wire.text ?? "";
        this.blocks.set(index, { type: "text", text });
        return text ? [{ type: "text_delta", text }] : [];
      }
      case "thinking": {
        const text = wire.thinking ?? "";
        this.blocks.set(index, { type: "thinking", text, signature: wire.signature ?? "" });
        return text ? [{ type: "thinking_delta", text }] : [];
      }
      case "redacted_thinking":
        this.blocks.set(index, { type: "redacted_thinking", data: wire.data ?? "" });
        return [];
      case "tool_use": {
        const block: Block = {
          type: "tool_use",
          id: wire.id ?? `toolu_${index}`,
          name: wire.name ?? "",
          json: "",
          startInput: wire.input,
        };
        this.blocks.set(index, block);
        return [{ type: "tool_call_delta", index: this.toolCount++, id: block.id, name: block.name }];
      }
      default:
        this.blocks.set(index, { type: "opaque", wire: structuredClone(wire), json: "" });
        return [];
    }
  }

  private addDelta(block: Block | undefined, delta: NonNullable<AnthropicStreamEvent["delta"]>): ModelEvent[] {
    if (!block) return [];
    if (block.type === "text" && delta.type === "text_delta" && delta.text) {
      block.text += delta.text;
      return [{ type: "text_delta", text: delta.text }];
    }
    if (block.type === "thinking" && delta.type === "thinking_delta" && delta.thinking) {
      block.text += delta.thinking;
      return [{ type: "thinking_delta", text: delta.thinking }];
    }
    if (block.type === "thinking" && delta.type === "signature_delta" && delta.signature)
      block.signature += delta.signature;
    if (block.type === "tool_use" && delta.type === "input_json_delta" && delta.partial_json)
      block.json = appendArguments(block.json, delta.partial_json);
    if (block.type === "text" && delta.type === "citations_delta" && delta.citation)
      (block.citations ??= []).push(delta.citation);
    if (block.type === "opaque") addOpaqueDelta(block, delta);
    return [];
  }

  /** Later usage (message_delta) overrides earlier (message_start) key by key; iterations, when listed, are summed instead. */
  private mergeUsage(usage: WireUsage | null | undefined): void {
    if (!usage) return;
    this.usage ??= {};
    const source =
      Array.isArray(usage.iterations) && usage.iterations.length > 0 ? sumIterations(usage.iterations) : usage;
    for (const key of USAGE_KEYS) {
      if (typeof source[key] === "number") this.usage[key] = source[key];
    }
  }
}

function sumIterations(iterations: WireUsage[]): WireUsage {
  const sum: WireUsage = {};
  for (const iteration of iterations) for (const key of USAGE_KEYS) sum[key] = (sum[key] ?? 0) + (iteration[key] ?? 0);
  return sum;
}

/**
 * Deltas of a block we keep whole: streamed JSON input (`server_tool_use`) is joined and parsed
 * at the end; any other string field of the delta continues the block's field of that name
 * (`compaction_delta` carries `content`).
 */
function addOpaqueDelta(
  block: Extract<Block, { type: "opaque" }>,
  delta: NonNullable<AnthropicStreamEvent["delta"]>,
): void {
  if (delta.type === "input_json_delta") {
    block.json += delta.partial_json ?? "";
    return;
  }
  for (const [key, value] of Object.entries(delta)) {
    if (key !== "type" && typeof value === "string") block.wire[key] = String(block.wire[key] ?? "") + value;
  }
}

/** Tool input as the API takes it back: an object; broken JSON (a cut reply) becomes `{}`. */
export function parseInput(json: string): Record<string, unknown> {
  try {
    const input: unknown = JSON.parse(json || "{}");
    return input && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A whole (non-streamed) reply as the events that would have streamed it. */
export function toStreamEvents(reply: WireMessageReply): AnthropicStreamEvent[] {
  return [
    { type: "message_start", message: { model: reply.model, usage: reply.usage } },
    ...(reply.content ?? []).map(
      (block, index): AnthropicStreamEvent => ({ type: "content_block_start", index, content_block: block }),
    ),
    { type: "message_delta", delta: { stop_reason: reply.stop_reason ?? null } },
    { type: "message_stop" },
  ];
}

export function toStopReason(reason: WireStopReason | null, hasToolCalls: boolean): StopReason {
  switch (reason) {
    case "tool_use":
      return "tool_use";
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "pause_turn":
      return "pause";
    case "refusal":
      return "refusal";
    case null:
      return hasToolCalls ? "tool_use" : "stop";
    default: {
      // A new SDK stop reason fails to compile here; one a server invents falls back at run time.
      const unknown: never = reason;
      void unknown;
      return hasToolCalls ? "tool_use" : "stop";
    }
  }
}

export function toUsage(wire: WireUsage): Usage {
  return {
    input: wire.input_tokens ?? 0,
    output: wire.output_tokens ?? 0,
    cacheRead: wire.cache_read_input_tokens ?? 0,
    cacheWrite: wire.cache_creation_input_tokens ?? 0,
  };
}

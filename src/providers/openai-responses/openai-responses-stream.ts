// Wire to neutral for the OpenAI Responses API: folds stream events into one assistant message.
// Pure (no I/O), so recorded streams can be replayed through it in tests.
import type { AssistantMessage, StopReason, Usage } from "../../core/messages.ts";
import type { ModelEvent } from "../../core/provider.ts";
import { appendArguments, MAX_TOOL_ARGUMENT_CHARS } from "../../core/run-tools.ts";
import { RESPONSES_API } from "./openai-responses-request.ts";

/** One output item as the API sends it (`reasoning`, `message`, `function_call`, ...). */
export interface OutputItem {
  type: string;
  id?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  summary?: Array<{ type: string; text?: string }>;
  content?: Array<{ type: string; text?: string; refusal?: string; [key: string]: unknown }>;
  [key: string]: unknown;
}

/** A whole response object (in `response.*` events, or as a non-streamed body). */
export interface WireResponse {
  /** The response's id, which a later request's `previous_response_id` names. */
  id?: string;
  model?: string;
  status?: string;
  output?: OutputItem[];
  usage?: WireUsage | null;
  incomplete_details?: { reason?: string } | null;
  error?: { code?: string; message?: string } | null;
}

/** Responses usage: `input_tokens` includes the cached ones, `output_tokens` the reasoning ones. */
export interface WireUsage {
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens?: number | null } | null;
  output_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/** The parts of a stream event we read; unknown event types are ignored. */
export interface ResponsesStreamEvent {
  type: string;
  response?: WireResponse;
  output_index?: number;
  item_id?: string;
  item?: OutputItem;
  delta?: string;
  arguments?: string;
  summary_index?: number;
}

/** What one output item has streamed so far; `done` is the whole item once the server sent it. */
interface ItemState {
  added: OutputItem;
  done?: OutputItem;
  text: string;
  refusal: string;
  arguments: string;
  /** Reasoning summary parts, by summary_index, and raw reasoning text (open models). */
  summary: string[];
  reasoning: string;
}

/** Between two reasoning summary parts, as the thinking shows them. */
const SUMMARY_SEPARATOR = "\n\n";

/** Accumulates one streamed reply. Feed it events in order, then call `finish()`. */
export class ResponsesStreamAccumulator {
  /** By output_index; a Map keeps the order items were added in. */
  private items = new Map<number, ItemState>();
  private final: WireResponse | undefined;
  private model: string | undefined;

  /** Folds one event in and returns the display events it carries. */
  add(event: ResponsesStreamEvent): ModelEvent[] {
    if (event.response?.model) this.model = event.response.model;
    switch (event.type) {
      case "response.output_item.added":
        return this.addItem(event);
      case "response.output_item.done": {
        const state = this.itemOf(event);
        if (state && event.item) state.done = event.item;
        return [];
      }
      case "response.output_text.delta":
        return this.addDelta(event, "text", "text_delta");
      case "response.refusal.delta":
        return this.addDelta(event, "refusal", "text_delta");
      case "response.function_call_arguments.delta":
        return this.addDelta(event, "arguments");
      case "response.function_call_arguments.done": {
        const state = this.itemOf(event);
        if (state && typeof event.arguments === "string") state.arguments = event.arguments;
        return [];
      }
      case "response.reasoning_summary_text.delta":
        return this.addSummaryDelta(event);
      case "response.reasoning_text.delta":
        return this.addDelta(event, "reasoning", "thinking_delta");
      case "response.completed":
      case "response.incomplete":
        this.final = event.response ?? {};
        return [];
      default:
        return [];
    }
  }

  /** True once the response completed or ended incomplete; a stream that stops before that was cut. */
  get isComplete(): boolean {
    return this.final !== undefined;
  }

  finish(): AssistantMessage {
    const states = [...this.items.values()];
    const content: AssistantMessage["content"] = [];
    const thinking = states
      .filter((s) => s.added.type === "reasoning")
      .map(thinkingOf)
      .filter(Boolean)
      .join(SUMMARY_SEPARATOR);
    if (thinking) content.push({ type: "thinking", text: thinking });
    const text = states.map((s) => s.text + s.refusal).join("");
    if (text) content.push({ type: "text", text });
    for (const state of states) {
      if (state.added.type !== "function_call") continue;
      const item = state.done ?? state.added;
      content.push({
        type: "tool_call",
        id: item.call_id ?? state.added.call_id ?? "",
        name: item.name ?? state.added.name ?? "",
        // The done events carry the whole text again: kept only up to the cap, as the deltas are.
        arguments: (item.arguments ?? state.arguments).slice(0, MAX_TOOL_ARGUMENT_CHARS + 1),
      });
    }
    const message: AssistantMessage = {
      role: "assistant",
      content,
      stopReason: this.stopReason(states),
      api: RESPONSES_API,
    };
    if (this.model) message.model = this.model;
    if (this.final?.usage) message.usage = toUsage(this.final.usage);
    if (states.length > 0) message.providerData = { output: states.map(wholeItem) };
    return message;
  }

  private stopReason(states: ItemState[]): StopReason {
    const hasCalls = states.some((s) => s.added.type === "function_call");
    if (this.final?.status === "incomplete") {
      // `max_output_tokens` is chat completions' `length`: the same cut-off handling follows.
      return this.final.incomplete_details?.reason === "content_filter" ? "refusal" : "length";
    }
    if (!hasCalls && states.some((s) => s.refusal) && !states.some((s) => s.text)) return "refusal";
    return hasCalls ? "tool_use" : "stop";
  }

  private addItem(event: ResponsesStreamEvent): ModelEvent[] {
    if (!event.item) return [];
    const index = event.output_index ?? this.items.size;
    this.items.set(index, {
      added: event.item,
      text: "",
      refusal: "",
      arguments: event.item.arguments ?? "",
      summary: [],
      reasoning: "",
    });
    if (event.item.type !== "function_call") return [];
    const position = [...this.items.values()].filter((s) => s.added.type === "function_call").length - 1;
    return [{ type: "tool_call_delta", index: position, id: event.item.call_id, name: event.item.name }];
  }

  /** The item an event belongs to: by output_index, else by item id. */
  private itemOf(event: ResponsesStreamEvent): ItemState | undefined {
    if (event.output_index !== undefined) return this.items.get(event.output_index);
    const id = event.item_id ?? event.item?.id;
    return [...this.items.values()].find((s) => s.added.id === id);
  }

  private addDelta(
    event: ResponsesStreamEvent,
    field: "text" | "refusal" | "arguments" | "reasoning",
    shown?: "text_delta" | "thinking_delta",
  ): ModelEvent[] {
    const state = this.itemOf(event);
    if (!state || !event.delta) return [];
    state[field] = field === "arguments" ? appendArguments(state[field], event.delta) : state[field] + event.delta;
    return shown ? [{ type: shown, text: event.delta }] : [];
  }

  private addSummaryDelta(event: ResponsesStreamEvent): ModelEvent[] {
    const state = this.itemOf(event);
    if (!state || !event.delta) return [];
    const index = event.summary_index ?? 0;
    const isNewPart = state.summary[index] === undefined;
    state.summary[index] = (state.summary[index] ?? "") + event.delta;
    // A new summary part, or a new reasoning item, is set apart from the thinking shown before it.
    const shownBefore = [...this.items.values()].some((s) => s !== state && thinkingOf(s)) || index > 0;
    const text = isNewPart && shownBefore ? SUMMARY_SEPARATOR + event.delta : event.delta;
    return [{ type: "thinking_delta", text }];
  }
}

/** The readable reasoning of an item: its summary parts, or its raw reasoning text. */
function thinkingOf(state: ItemState): string {
  return state.summary.filter((part) => part !== undefined).join(SUMMARY_SEPARATOR) || state.reasoning;
}

/** The item as it goes back: the server's final form, or (no `done` came) the added one with what streamed. */
function wholeItem(state: ItemState): OutputItem {
  if (state.done) return state.done;
  switch (state.added.type) {
    case "message":
      return { ...state.added, content: [{ type: "output_text", text: state.text, annotations: [] }] };
    case "function_call":
      return { ...state.added, arguments: state.arguments };
    case "reasoning":
      return { ...state.added, summary: state.summary.map((text) => ({ type: "summary_text", text })) };
    default:
      return state.added;
  }
}

/** A whole (non-streamed) response as the events that would have streamed it. */
export function toStreamEvents(response: WireResponse): ResponsesStreamEvent[] {
  const events: ResponsesStreamEvent[] = [{ type: "response.created", response: { model: response.model } }];
  (response.output ?? []).forEach((item, index) => {
    events.push({ type: "response.output_item.added", output_index: index, item });
    for (const part of item.content ?? []) {
      if (part.type === "output_text" && part.text)
        events.push({ type: "response.output_text.delta", output_index: index, delta: part.text });
      if (part.type === "refusal" && part.refusal)
        events.push({ type: "response.refusal.delta", output_index: index, delta: part.refusal });
    }
    (item.summary ?? []).forEach((part, summaryIndex) => {
      if (part.text)
        events.push({
          type: "response.reasoning_summary_text.delta",
          output_index: index,
          summary_index: summaryIndex,
          delta: part.text,
        });
    });
    events.push({ type: "response.output_item.done", output_index: index, item });
  });
  events.push({ type: response.status === "incomplete" ? "response.incomplete" : "response.completed", response });
  return events;
}

/** Neutral usage: `input` without the cached tokens; `output` already counts the reasoning. */
export function toUsage(wire: WireUsage): Usage {
  const cacheRead = wire.input_tokens_details?.cached_tokens ?? 0;
  return {
    input: Math.max(0, (wire.input_tokens ?? 0) - cacheRead),
    output: wire.output_tokens ?? 0,
    cacheRead,
    cacheWrite: 0,
  };
}

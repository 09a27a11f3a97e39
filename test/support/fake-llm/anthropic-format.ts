// The Anthropic Messages wire format for the fake server.
import { pieces } from "./pieces.ts";
import type { ReplySpec, WireFormat } from "./server.ts";

const DEFAULT_CHUNK = 7;
/** The API's limit on cache_control breakpoints per request. */
const MAX_CACHE_BREAKPOINTS = 4;

function argumentsText(args: string | Record<string, unknown>): string {
  return typeof args === "string" ? args : JSON.stringify(args);
}

/** A stand-in for the opaque signature Anthropic puts on thinking; tests check it comes back unchanged. */
export function fakeSignature(reasoning: string): string {
  return `EqSig${Buffer.from(reasoning).toString("base64")}`;
}

function sse(type: string, payload: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`;
}

function stopReason(reply: ReplySpec): string {
  return reply.finishReason ?? (reply.toolCalls?.length ? "tool_use" : "end_turn");
}

const START_USAGE = { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const END_USAGE = { output_tokens: 5 };

export const anthropicFormat: WireFormat = {
  name: "anthropic",

  /** `usage` goes in message_delta, whose keys override message_start's (input 10, output 1, no cache). */
  streamEvents(reply: ReplySpec): string[] {
    const size = reply.chunkSize ?? DEFAULT_CHUNK;
    const events = [
      sse("message_start", {
        message: {
          id: reply.messageId ?? "msg_fake",
          type: "message",
          role: "assistant",
          model: "fake-model",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: START_USAGE,
        },
      }),
      sse("ping", {}),
    ];
    let index = 0;
    if (reply.reasoning) {
      events.push(
        sse("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } }),
      );
      for (const piece of pieces(reply.reasoning, size))
        events.push(sse("content_block_delta", { index, delta: { type: "thinking_delta", thinking: piece } }));
      events.push(
        sse("content_block_delta", {
          index,
          delta: { type: "signature_delta", signature: reply.signature ?? fakeSignature(reply.reasoning) },
        }),
      );
      events.push(sse("content_block_stop", { index: index++ }));
    }
    if (reply.text) {
      events.push(sse("content_block_start", { index, content_block: { type: "text", text: "" } }));
      for (const piece of pieces(reply.text, size))
        events.push(sse("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
      events.push(sse("content_block_stop", { index: index++ }));
    }
    (reply.toolCalls ?? []).forEach((call, position) => {
      const id = call.id ?? `toolu_${position + 1}`;
      events.push(
        sse("content_block_start", { index, content_block: { type: "tool_use", id, name: call.name, input: {} } }),
      );
      // Anthropic's first input delta is empty, as in the recordings.
      for (const piece of ["", ...pieces(argumentsText(call.arguments), size)])
        events.push(sse("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }));
      events.push(sse("content_block_stop", { index: index++ }));
    });
    const usage = reply.usage === undefined ? END_USAGE : reply.usage;
    events.push(
      sse("message_delta", {
        delta: { stop_reason: stopReason(reply), stop_sequence: null },
        ...(usage ? { usage } : {}),
      }),
    );
    events.push(sse("message_stop", {}));
    return events;
  },

  jsonBody(reply: ReplySpec): unknown {
    const content: unknown[] = [];
    if (reply.reasoning)
      content.push({
        type: "thinking",
        thinking: reply.reasoning,
        signature: reply.signature ?? fakeSignature(reply.reasoning),
      });
    if (reply.text) content.push({ type: "text", text: reply.text });
    (reply.toolCalls ?? []).forEach((call, position) => {
      content.push({
        type: "tool_use",
        id: call.id ?? `toolu_${position + 1}`,
        name: call.name,
        input: JSON.parse(argumentsText(call.arguments)),
      });
    });
    const usage = reply.usage === undefined ? { ...START_USAGE, ...END_USAGE } : reply.usage;
    return {
      id: reply.messageId ?? "msg_fake",
      type: "message",
      role: "assistant",
      model: "fake-model",
      content,
      stop_reason: stopReason(reply),
      stop_sequence: null,
      ...(usage ? { usage } : {}),
    };
  },

  errorBody(status: number, message: string): unknown {
    const types: Record<number, string> = {
      400: "invalid_request_error",
      401: "authentication_error",
      403: "permission_error",
      404: "not_found_error",
      413: "request_too_large",
      429: "rate_limit_error",
      529: "overloaded_error",
    };
    return { type: "error", error: { type: types[status] ?? "api_error", message } };
  },

  /**
   * What the real API rejects: roles not alternating, a tool_use not answered by exactly one
   * tool_result in the very next user message (results first in it), empty text, thinking
   * without a signature, missing max_tokens, too many cache breakpoints. Also `stream: true`.
   */
  validate(body: any): string[] {
    const problems: string[] = [];
    if (!body || !Array.isArray(body.messages)) return ["no messages array"];
    if (body.stream !== true) problems.push("stream is not true");
    if (!Number.isInteger(body.max_tokens) || body.max_tokens <= 0) problems.push("max_tokens is missing");
    if (body.messages[0]?.role !== "user") problems.push("the first message is not from the user");
    let breakpoints = 0;
    const countBreakpoint = (block: any) => (breakpoints += block?.cache_control ? 1 : 0);
    (Array.isArray(body.system) ? body.system : []).forEach(countBreakpoint);
    (body.tools ?? []).forEach(countBreakpoint);
    for (const tool of body.tools ?? []) {
      // A server tool (web search) is named by a versioned type and has no schema.
      if (typeof tool.type === "string") {
        if (!/^[a-z_]+_\d{8}$/.test(tool.type))
          problems.push(`tool ${tool.name}: unknown server tool type ${tool.type}`);
      } else if (tool.input_schema?.type !== "object")
        problems.push(`tool ${tool.name}: input_schema is not an object schema`);
    }

    body.messages.forEach((message: any, position: number) => {
      const where = `message ${position}`;
      if (!Array.isArray(message.content) && typeof message.content !== "string")
        problems.push(`${where}: content is neither a string nor blocks`);
      const blocks: any[] = Array.isArray(message.content) ? message.content : [];
      blocks.forEach(countBreakpoint);
      if (position > 0 && body.messages[position - 1].role === message.role)
        problems.push(`${where}: two ${message.role} messages in a row`);
      for (const block of blocks) {
        if (block.type === "text" && !block.text) problems.push(`${where}: empty text block`);
        if (block.type === "thinking" && !block.signature) problems.push(`${where}: thinking block without signature`);
        if (
          block.type === "tool_use" &&
          (typeof block.input !== "object" || block.input === null || Array.isArray(block.input))
        )
          problems.push(`${where}: tool_use ${block.id} input is not an object`);
        const images =
          block.type === "tool_result" && Array.isArray(block.content)
            ? block.content.filter((inner: any) => inner.type === "image")
            : block.type === "image"
              ? [block]
              : [];
        for (const image of images) problems.push(...imageBlockProblems(image, where));
      }
      const firstOther = blocks.findIndex((block) => block.type !== "tool_result");
      const lastResult = blocks.map((block) => block.type).lastIndexOf("tool_result");
      if (firstOther !== -1 && lastResult > firstOther)
        problems.push(`${where}: a tool_result comes after other content`);

      const calls: string[] =
        message.role === "assistant"
          ? blocks.filter((block) => block.type === "tool_use").map((block) => block.id)
          : [];
      const previous = body.messages[position - 1];
      const answered: string[] =
        previous?.role === "assistant"
          ? (previous.content.filter?.((block: any) => block.type === "tool_use").map((block: any) => block.id) ?? [])
          : [];
      if (message.role === "user") {
        for (const block of blocks) {
          if (block.type === "tool_result" && !answered.includes(block.tool_use_id))
            problems.push(`${where}: tool_result ${block.tool_use_id} answers no tool_use of the message before`);
        }
      }
      if (calls.length === 0) return;
      const next = body.messages[position + 1];
      const results =
        next?.role === "user" && Array.isArray(next.content)
          ? next.content.filter((block: any) => block.type === "tool_result")
          : [];
      for (const id of calls) {
        const count = results.filter((block: any) => block.tool_use_id === id).length;
        if (count !== 1) problems.push(`tool_use ${id} has ${count} tool_results in the next message`);
      }
    });
    if (breakpoints > MAX_CACHE_BREAKPOINTS)
      problems.push(`${breakpoints} cache_control breakpoints (at most ${MAX_CACHE_BREAKPOINTS})`);
    return problems;
  },
};

/** An image block as the Messages API takes it: base64 of one of the four accepted formats. */
function imageBlockProblems(block: any, where: string): string[] {
  const source = block.source ?? {};
  if (
    source.type !== "base64" ||
    !/^image\/(png|jpeg|gif|webp)$/.test(source.media_type) ||
    typeof source.data !== "string" ||
    !/^[A-Za-z0-9+/]+=*$/.test(source.data)
  ) {
    return [`${where}: malformed image block`];
  }
  return [];
}

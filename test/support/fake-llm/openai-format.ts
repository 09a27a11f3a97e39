// The chat-completions wire format for the fake server.
import { pieces } from "./pieces.ts";
import type { ReplySpec, WireFormat } from "./server.ts";

const DEFAULT_CHUNK = 7;

function argumentsText(args: string | Record<string, unknown>): string {
  return typeof args === "string" ? args : JSON.stringify(args);
}

function chunk(
  delta: Record<string, unknown>,
  finishReason: string | null = null,
  extra: Record<string, unknown> = {},
): string {
  const payload = {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1,
    model: "fake-model",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...extra,
  };
  return `data: ${JSON.stringify(payload)}\n\n`;
}

export const openaiFormat: WireFormat = {
  name: "openai",

  streamEvents(reply: ReplySpec): string[] {
    const size = reply.chunkSize ?? DEFAULT_CHUNK;
    const events = [chunk({ role: "assistant", content: "" })];
    if (reply.reasoning)
      for (const piece of pieces(reply.reasoning, size)) events.push(chunk({ reasoning_content: piece }));
    if (reply.reasoningDetails) events.push(chunk({ reasoning_details: reply.reasoningDetails }));
    if (reply.text) for (const piece of pieces(reply.text, size)) events.push(chunk({ content: piece }));
    (reply.toolCalls ?? []).forEach((call, index) => {
      const id = call.id ?? `call_${index + 1}`;
      events.push(
        chunk({
          tool_calls: [{ index, id, type: "function", function: { name: call.name, arguments: "" }, ...call.extra }],
        }),
      );
      for (const piece of pieces(argumentsText(call.arguments), size))
        events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    const finish = reply.finishReason ?? (reply.toolCalls?.length ? "tool_calls" : "stop");
    events.push(chunk({}, finish));
    const usage =
      reply.usage === undefined ? { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } : reply.usage;
    if (usage)
      events.push(
        `data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1, model: "fake-model", choices: [], usage })}\n\n`,
      );
    events.push("data: [DONE]\n\n");
    return events;
  },

  jsonBody(reply: ReplySpec): unknown {
    const toolCalls = (reply.toolCalls ?? []).map((call, index) => ({
      id: call.id ?? `call_${index + 1}`,
      type: "function",
      function: { name: call.name, arguments: argumentsText(call.arguments) },
    }));
    return {
      id: "chatcmpl-fake",
      object: "chat.completion",
      model: "fake-model",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: reply.text ?? null,
            ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: reply.finishReason ?? (toolCalls.length ? "tool_calls" : "stop"),
        },
      ],
      usage: reply.usage === undefined ? { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } : reply.usage,
    };
  },

  errorBody(status: number, message: string): unknown {
    return { error: { message, type: status === 401 ? "invalid_request_error" : "server_error", code: status } };
  },

  /** Every assistant tool call must be answered by exactly one `tool` message before the next assistant turn. */
  validate(body: any): string[] {
    const problems: string[] = [];
    if (!body || !Array.isArray(body.messages)) return ["no messages array"];
    if (body.stream !== true) problems.push("stream is not true");
    let open = new Map<string, number>();
    const closeTurn = () => {
      for (const [id, count] of open) if (count !== 1) problems.push(`tool call ${id} has ${count} results`);
      open = new Map();
    };
    for (const message of body.messages) {
      if (message.role === "assistant") {
        closeTurn();
        for (const call of message.tool_calls ?? []) {
          if (!call.id) problems.push("assistant tool call without id");
          if (typeof call.function?.arguments !== "string")
            problems.push(`tool call ${call.id}: arguments is not a string`);
          open.set(call.id, 0);
        }
      } else if (message.role === "tool") {
        // The API takes text only in tool messages; an image must come in a user message.
        if (
          typeof message.content !== "string" &&
          !(Array.isArray(message.content) && message.content.every((part: any) => part.type === "text"))
        ) {
          problems.push(`tool result ${message.tool_call_id}: content is not text`);
        }
        if (!open.has(message.tool_call_id))
          problems.push(`tool result ${message.tool_call_id} answers no pending call`);
        else open.set(message.tool_call_id, (open.get(message.tool_call_id) ?? 0) + 1);
      } else if (message.role === "user") {
        closeTurn();
        for (const part of Array.isArray(message.content) ? message.content : []) {
          if (
            part.type === "image_url" &&
            !/^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*$/.test(part.image_url?.url ?? "")
          )
            problems.push("user message: malformed image_url data URL");
        }
      }
    }
    closeTurn();
    return problems;
  },
};

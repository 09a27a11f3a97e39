// The OpenAI Responses wire format for the fake server (`POST .../responses`).
import { pieces } from "./pieces.ts";
import type { ReplySpec, WireFormat } from "./server.ts";

const DEFAULT_CHUNK = 7;

/** A stand-in for the encrypted reasoning the API returns; tests check it comes back unchanged. */
export function fakeEncryptedReasoning(reasoning: string): string {
  return `gAAAAfake${Buffer.from(reasoning).toString("base64")}`;
}

function argumentsText(args: string | Record<string, unknown>): string {
  return typeof args === "string" ? args : JSON.stringify(args);
}

function sse(type: string, payload: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`;
}

/** A `finishReason` of `max_output_tokens` or `content_filter` ends the reply incomplete, for that reason. */
const INCOMPLETE_REASONS = ["max_output_tokens", "content_filter"];

const DEFAULT_USAGE = {
  input_tokens: 10,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 5,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 15,
};

/** The output items of a reply, whole: reasoning (with a summary and encrypted content), message, function calls. */
function outputItems(reply: ReplySpec): Array<Record<string, unknown>> {
  const items: Array<Record<string, unknown>> = [];
  if (reply.reasoning)
    items.push({
      id: "rs_fake",
      type: "reasoning",
      summary: [{ type: "summary_text", text: reply.reasoning }],
      encrypted_content: reply.signature ?? fakeEncryptedReasoning(reply.reasoning),
    });
  if (reply.text)
    items.push({
      id: "msg_fake",
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: reply.text, annotations: [] }],
    });
  (reply.toolCalls ?? []).forEach((call, index) => {
    items.push({
      id: `fc_fake_${index + 1}`,
      type: "function_call",
      status: "completed",
      call_id: call.id ?? `call_${index + 1}`,
      name: call.name,
      arguments: argumentsText(call.arguments),
    });
  });
  return items;
}

function responseObject(reply: ReplySpec, output: Array<Record<string, unknown>>): Record<string, unknown> {
  const incomplete = INCOMPLETE_REASONS.includes(reply.finishReason ?? "");
  return {
    id: reply.messageId ?? "resp_fake",
    object: "response",
    model: "fake-model",
    status: incomplete ? "incomplete" : "completed",
    incomplete_details: incomplete ? { reason: reply.finishReason } : null,
    output,
    usage: reply.usage === undefined ? DEFAULT_USAGE : reply.usage,
  };
}

export const responsesFormat: WireFormat = {
  name: "responses",

  streamEvents(reply: ReplySpec): string[] {
    const size = reply.chunkSize ?? DEFAULT_CHUNK;
    const events = [
      sse("response.created", {
        response: { id: reply.messageId ?? "resp_fake", model: "fake-model", status: "in_progress", output: [] },
      }),
    ];
    const items = outputItems(reply);
    items.forEach((item, index) => {
      const base = { output_index: index, item_id: item.id };
      switch (item.type) {
        case "reasoning":
          events.push(sse("response.output_item.added", { output_index: index, item: { ...item, summary: [] } }));
          for (const piece of pieces(reply.reasoning ?? "", size))
            events.push(sse("response.reasoning_summary_text.delta", { ...base, summary_index: 0, delta: piece }));
          break;
        case "message":
          events.push(sse("response.output_item.added", { output_index: index, item: { ...item, content: [] } }));
          for (const piece of pieces(reply.text ?? "", size))
            events.push(sse("response.output_text.delta", { ...base, content_index: 0, delta: piece }));
          break;
        case "function_call":
          events.push(sse("response.output_item.added", { output_index: index, item: { ...item, arguments: "" } }));
          for (const piece of pieces(String(item.arguments), size))
            events.push(sse("response.function_call_arguments.delta", { ...base, delta: piece }));
          events.push(sse("response.function_call_arguments.done", { ...base, arguments: item.arguments }));
          break;
      }
      events.push(sse("response.output_item.done", { output_index: index, item }));
    });
    const response = responseObject(reply, items);
    events.push(sse(response.status === "incomplete" ? "response.incomplete" : "response.completed", { response }));
    return events;
  },

  jsonBody(reply: ReplySpec): unknown {
    return responseObject(reply, outputItems(reply));
  },

  errorBody(status: number, message: string): unknown {
    return {
      error: { message, type: status === 401 ? "invalid_request_error" : "server_error", code: null, param: null },
    };
  },

  /**
   * Stateless requests (`store: false`) or stored ones (`store: true`: responses-store.ts rebuilds a
   * continue's whole input and takes `previous_response_id` out), encrypted reasoning asked for, and
   * every function call answered by exactly one `function_call_output` before the next message.
   */
  validate(body: any): string[] {
    const problems: string[] = [];
    if (!body || !Array.isArray(body.input)) return ["no input array"];
    if (body.stream !== true) problems.push("stream is not true");
    if (typeof body.store !== "boolean") problems.push("store is not said (OpenAI's default is to store)");
    if (!body.include?.includes("reasoning.encrypted_content")) problems.push("encrypted reasoning not asked for");
    if (body.previous_response_id !== undefined) problems.push("previous_response_id sent");
    let open = new Map<string, number>();
    const closeTurn = () => {
      for (const [id, count] of open) if (count !== 1) problems.push(`function call ${id} has ${count} outputs`);
      open = new Map();
    };
    for (const item of body.input) {
      if (item.type === "function_call") {
        if (!item.call_id) problems.push("function call without call_id");
        if (typeof item.arguments !== "string")
          problems.push(`function call ${item.call_id}: arguments is not a string`);
        open.set(item.call_id, 0);
      } else if (item.type === "function_call_output") {
        if (!open.has(item.call_id)) problems.push(`function call output ${item.call_id} answers no pending call`);
        else open.set(item.call_id, (open.get(item.call_id) ?? 0) + 1);
      } else if (item.role === "user") {
        closeTurn();
      } else if (item.type === "reasoning" && !item.encrypted_content) {
        problems.push(`reasoning item ${item.id} without its encrypted content: a stateless server cannot read it`);
      }
    }
    closeTurn();
    return problems;
  },
};

// Gemini's generateContent wire format for the fake server (`:streamGenerateContent?alt=sse`).
// https://ai.google.dev/api/generate-content
import { pieces } from "./pieces.ts";
import type { ReplySpec, WireFormat } from "./server.ts";

const DEFAULT_CHUNK = 7;

function args(call: { arguments: string | Record<string, unknown> }): Record<string, unknown> {
  return typeof call.arguments === "string" ? JSON.parse(call.arguments || "{}") : call.arguments;
}

function chunk(parts: unknown[], extra: Record<string, unknown> = {}): string {
  const payload = {
    candidates: [{ content: { role: "model", parts }, index: 0, ...extra }],
    modelVersion: "fake-model",
  };
  return `data: ${JSON.stringify(payload)}\n\n`;
}

const USAGE = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };

export const geminiFormat: WireFormat = {
  name: "gemini",

  streamEvents(reply: ReplySpec): string[] {
    const size = reply.chunkSize ?? DEFAULT_CHUNK;
    const events: string[] = [];
    if (reply.reasoning)
      for (const piece of pieces(reply.reasoning, size)) events.push(chunk([{ text: piece, thought: true }]));
    if (reply.text) for (const piece of pieces(reply.text, size)) events.push(chunk([{ text: piece }]));
    // Gemini sends each function call whole, in one part.
    for (const call of reply.toolCalls ?? [])
      events.push(chunk([{ functionCall: { name: call.name, args: args(call) }, ...call.extra }]));
    const usage = reply.usage === undefined ? USAGE : reply.usage;
    const last = JSON.stringify({
      candidates: [
        { content: { role: "model", parts: [{ text: "" }] }, finishReason: reply.finishReason ?? "STOP", index: 0 },
      ],
      ...(usage ? { usageMetadata: usage } : {}),
      modelVersion: "fake-model",
    });
    events.push(`data: ${last}\n\n`);
    return events;
  },

  jsonBody(reply: ReplySpec): unknown {
    const parts: unknown[] = [];
    if (reply.reasoning) parts.push({ text: reply.reasoning, thought: true });
    if (reply.text) parts.push({ text: reply.text });
    for (const call of reply.toolCalls ?? [])
      parts.push({ functionCall: { name: call.name, args: args(call) }, ...call.extra });
    return {
      candidates: [{ content: { role: "model", parts }, finishReason: reply.finishReason ?? "STOP", index: 0 }],
      usageMetadata: reply.usage === undefined ? USAGE : reply.usage,
    };
  },

  errorBody(status: number, message: string): unknown {
    const statuses: Record<number, string> = {
      400: "INVALID_ARGUMENT",
      403: "PERMISSION_DENIED",
      429: "RESOURCE_EXHAUSTED",
      // https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes: 503 is UNAVAILABLE.
      503: "UNAVAILABLE",
    };
    return { error: { code: status, message, status: statuses[status] ?? "INTERNAL" } };
  },

  /**
   * Roles are `user` and `model`; a user content answering a model content with function calls has
   * exactly as many functionResponse parts ("Please ensure that the number of function response
   * parts is equal to the number of function call parts of the function call turn.", the API's own
   * 400; https://ai.google.dev/gemini-api/docs/function-calling).
   */
  validate(body: any): string[] {
    if (!body || !Array.isArray(body.contents)) return ["no contents array"];
    const problems: string[] = [];
    body.contents.forEach((content: any, index: number) => {
      if (content.role !== "user" && content.role !== "model")
        problems.push(`contents[${index}]: role ${content.role}`);
      if (!Array.isArray(content.parts) || content.parts.length === 0) problems.push(`contents[${index}]: no parts`);
      const calls = (content.parts ?? []).filter((part: any) => part.functionCall).length;
      if (content.role !== "model" || calls === 0) return;
      const next = body.contents[index + 1];
      const responses = (next?.parts ?? []).filter((part: any) => part.functionResponse).length;
      if (next && responses !== calls)
        problems.push(`contents[${index + 1}]: ${responses} responses to ${calls} calls`);
    });
    return problems;
  },
};

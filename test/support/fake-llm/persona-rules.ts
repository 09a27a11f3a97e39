// The rules of the strict personas (personas.ts) for chat completions and the Responses API: each
// refuses, with the real service's error body, what that service refuses, and names its source.

export interface Refusal {
  status: number;
  body: unknown;
  /** The rule, in words, for the test's failure message. */
  rule: string;
}

export type Rule = (body: any, persona: PersonaState) => Refusal | undefined;

/** What a persona has issued: signatures, by the model they were issued for. */
export interface PersonaState {
  signatures: Map<string, string>;
  count: number;
}

export const messagesOf = (body: any): any[] => (Array.isArray(body?.messages) ? body.messages : []);

/** Index of the last plain user message (a user message of text, not tool results). */
export function currentTurnStart(messages: any[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === "user") return i;
  return 0;
}

// ---- OpenAI chat completions ------------------------------------------------------------------

/** OpenAI's error body. */
export function openaiError(message: string, param: string | null, code: string | null): unknown {
  return { error: { message, type: "invalid_request_error", param, code } };
}

/** "Invalid 'tools': array too long. Expected an array with maximum length 128" (https://platform.openai.com/docs/api-reference/chat/create: "A max of 128 functions"). */
export const openaiToolCount: Rule = (body) => {
  const count = body?.tools?.length ?? 0;
  if (count <= 128) return undefined;
  const message = `Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length ${count} instead.`;
  return { status: 400, body: openaiError(message, "tools", "array_above_max_length"), rule: "at most 128 tools" };
};

/** Function names `^[a-zA-Z0-9_-]{1,64}$` (https://platform.openai.com/docs/api-reference/chat/create, tools.function.name). */
export const openaiToolNames: Rule = (body) => {
  const index = (body?.tools ?? []).findIndex(
    (tool: any) => !/^[a-zA-Z0-9_-]{1,64}$/.test(tool.function?.name ?? tool.name ?? ""),
  );
  if (index < 0) return undefined;
  const param = `tools[${index}].function.name`;
  const message = `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`;
  return {
    status: 400,
    body: openaiError(message, param, "invalid_value"),
    rule: "tool names match ^[a-zA-Z0-9_-]{1,64}$",
  };
};

/** Ids at most 40 characters ("string too long. Expected a string with maximum length 40", Portkey-AI/gateway#1062). */
export const openaiIdLength: Rule = (body) => {
  for (const [m, message] of messagesOf(body).entries())
    for (const [c, call] of (message.tool_calls ?? []).entries())
      if (String(call.id).length > 40) {
        const param = `messages[${m}].tool_calls[${c}].id`;
        const text = `Invalid '${param}': string too long. Expected a string with maximum length 40, but got a string with length ${String(call.id).length} instead.`;
        return {
          status: 400,
          body: openaiError(text, param, "string_above_max_length"),
          rule: "tool call ids of at most 40 characters",
        };
      }
  return undefined;
};

/**
 * Responses: encrypted reasoning is readable only by the model that wrote it ("The encrypted
 * content gAAA...CwHs could not be verified.", openai/codex#8126; on a model switch,
 * openai/codex#17541).
 */
export const responsesEncrypted: Rule = (body, state) => {
  for (const item of Array.isArray(body?.input) ? body.input : [])
    if (
      item.type === "reasoning" &&
      item.encrypted_content &&
      state.signatures.get(item.encrypted_content) !== body.model
    )
      return {
        status: 400,
        body: openaiError(
          `The encrypted content ${String(item.encrypted_content).slice(0, 4)}...${String(item.encrypted_content).slice(-4)} could not be verified.`,
          null,
          "invalid_encrypted_content",
        ),
        rule: "encrypted reasoning of this model",
      };
  return undefined;
};

// ---- Servers with chat completions of their own ---------------------------------------------------

/** DeepSeek thinking mode: tool-call messages of the current turn carry reasoning_content (https://api-docs.deepseek.com/guides/thinking_mode#tool-calls; abhigyanpatwari/GitNexus#43). */
export const deepseekReasoning: Rule = (body) => {
  const thinks = /reasoner/.test(body?.model ?? "") || body?.thinking?.type === "enabled";
  if (!thinks) return undefined;
  const messages = messagesOf(body);
  for (let i = currentTurnStart(messages); i < messages.length; i++) {
    const message = messages[i];
    if (message.role === "assistant" && message.tool_calls?.length && typeof message.reasoning_content !== "string") {
      const text = `Missing \`reasoning_content\` field in the assistant message at message index ${i}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`;
      return {
        status: 400,
        body: { error: { message: text, type: "invalid_request_error", param: null, code: "invalid_request_error" } },
        rule: "reasoning_content on the turn's tool-call messages",
      };
    }
  }
  return undefined;
};

/** Kimi thinking: every tool-call message carries reasoning_content (mastra-ai/mastra#12592; https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model#multi-step-tool-call). */
export const kimiReasoning: Rule = (body) => {
  const thinks = /thinking|k2\.5|k2-5/.test(body?.model ?? "") || body?.thinking?.type === "enabled";
  if (!thinks) return undefined;
  const index = messagesOf(body).findIndex(
    (message) =>
      message.role === "assistant" && message.tool_calls?.length && typeof message.reasoning_content !== "string",
  );
  if (index < 0) return undefined;
  const text = `thinking is enabled but reasoning_content is missing in assistant tool call message at index ${index}`;
  return {
    status: 400,
    body: { error: { message: text, type: "invalid_request_error" } },
    rule: "reasoning_content on tool-call messages",
  };
};

/** Mistral: ids of 9 letters and digits, in calls and results (karthink/gptel#1203, editor-code-assistant/eca#233). */
export const mistralIds: Rule = (body) => {
  for (const message of messagesOf(body)) {
    const ids = [
      ...(message.tool_calls ?? []).map((call: any) => call.id),
      ...(message.tool_call_id ? [message.tool_call_id] : []),
    ];
    const bad = ids.find((id) => !/^[a-zA-Z0-9]{9}$/.test(String(id)));
    if (bad !== undefined)
      return {
        status: 400,
        body: {
          object: "error",
          message: `Tool call id was ${bad} but must be a-z, A-Z, 0-9, with a length of 9.`,
          type: "invalid_function_call",
          param: null,
          code: "3280",
        },
        rule: "tool call ids of 9 letters and digits",
      };
  }
  return undefined;
};

/** Fields chat messages have in OpenAI's reference; strict servers refuse others. */
const CHAT_FIELDS = new Set(["role", "content", "name", "tool_calls", "tool_call_id", "refusal", "prefix"]);

/** Mistral answers 422 to fields it does not know ("Extra inputs are not permitted"; openai-compat.ts has met it on stream_options). */
export const mistralExtraFields: Rule = (body) => {
  for (const [index, message] of messagesOf(body).entries()) {
    const extra = Object.keys(message).find((key) => !CHAT_FIELDS.has(key));
    const extraInCall = (message.tool_calls ?? [])
      .flatMap((call: any) => Object.keys(call))
      .find((key: string) => !["id", "type", "function", "index"].includes(key));
    const field = extra ?? extraInCall;
    if (field)
      return {
        status: 422,
        body: {
          object: "error",
          message: {
            detail: [
              {
                type: "extra_forbidden",
                loc: ["body", "messages", index, message.role, field],
                msg: "Extra inputs are not permitted",
                input: message[field] ?? null,
              },
            ],
          },
          type: "invalid_request_message_error",
          param: null,
          code: null,
        },
        rule: `no foreign field (${field}) on messages`,
      };
  }
  return undefined;
};

/** Groq refuses reasoning fields on assistant messages (janhq/jan#8136, tashfeenahmed/freellmapi#1070). */
export const groqExtraFields: Rule = (body) => {
  for (const [index, message] of messagesOf(body).entries()) {
    const field = ["reasoning_content", "reasoning_details", "reasoning", "extra_content"].find(
      (key) => key in message,
    );
    if (message.role === "assistant" && field) {
      const text = `'messages.${index}' : for 'role:assistant' the following must be satisfied[('messages.${index}' : property '${field}' is unsupported)]`;
      return {
        status: 400,
        body: { error: { message: text, type: "invalid_request_error" } },
        rule: `no ${field} on assistant messages`,
      };
    }
  }
  return undefined;
};

/** Gemini 3's thought signatures, in the words and body Google's endpoints answer with (anomalyco/opencode-style reports: manthanabc/paws#103, niki914/zafiro#100). */
export function missingSignature(name: string, position: number): { error: unknown } {
  return {
    error: {
      code: 400,
      message: `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${position}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
      status: "INVALID_ARGUMENT",
    },
  };
}

/** Google's documented stand-in for a call another model made (https://ai.google.dev/gemini-api/docs/thought-signatures#faqs). */
export const DUMMY_SIGNATURES = new Set(["skip_thought_signature_validator", "context_engineering_is_the_way_to_go"]);

/** The first call of each reply in the current turn carries the signature issued with it (https://ai.google.dev/gemini-api/docs/thought-signatures, "OpenAI compatibility"). */
export const geminiCompatSignatures: Rule = (body, state) => {
  if (!/gemini-3/.test(body?.model ?? "")) return undefined;
  const messages = messagesOf(body);
  for (let i = currentTurnStart(messages); i < messages.length; i++) {
    const first = messages[i].role === "assistant" ? messages[i].tool_calls?.[0] : undefined;
    const signature = first?.extra_content?.google?.thought_signature;
    if (first && !DUMMY_SIGNATURES.has(signature) && state.signatures.get(signature) !== body.model)
      return {
        status: 400,
        body: [missingSignature(first.function?.name, i + 1)],
        rule: "thought_signature on the first call of each reply",
      };
  }
  return undefined;
};

/** OpenRouter passes Gemini 3's refusal on when `reasoning_details` do not come back (https://openrouter.ai/docs/use-cases/reasoning-tokens#preserving-reasoning-blocks). */
export const openrouterDetails: Rule = (body, state) => {
  if (!/gemini-3/.test(body?.model ?? "")) return undefined;
  const messages = messagesOf(body);
  for (let i = currentTurnStart(messages); i < messages.length; i++) {
    const message = messages[i];
    if (message.role !== "assistant" || !message.tool_calls?.length) continue;
    const signed = (message.reasoning_details ?? []).some(
      (detail: any) => state.signatures.get(detail.data) === body.model,
    );
    if (!signed)
      return {
        status: 400,
        body: {
          error: {
            message: "Provider returned error",
            code: 400,
            metadata: {
              raw: JSON.stringify(missingSignature(message.tool_calls[0].function?.name, i + 1)),
              provider_name: "Google",
            },
          },
        },
        rule: "reasoning_details back on the turn's tool-call messages",
      };
  }
  return undefined;
};

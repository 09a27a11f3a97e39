// Rules of the strict personas (personas.ts) that depend on the model a request names: what one
// model takes that another does not. Each refuses with the real service's error body and names
// its source; the catalogue (src/providers/catalogue/) is what keeps harness inside them.
import { messagesOf, openaiError, type Rule } from "./persona-rules.ts";
import { findShapeProblem } from "./persona-rules-messages.ts";

/**
 * OpenAI's reasoning efforts by model: the codex models take low, medium and high only ("Unsupported
 * value: 'none' is not supported with the 'gpt-5.1-codex' model. Supported values are: 'low',
 * 'medium', and 'high'.", openai/codex#6647; 'minimal' the same on gpt-5-codex, anomalyco/opencode#4451
 * for gpt-5.1's own list); a model that does not reason takes no effort at all.
 */
export const openaiEfforts: Rule = (body) => {
  const model = String(body?.model ?? "");
  const effort = body?.reasoning_effort ?? body?.reasoning?.effort;
  if (effort === undefined) return undefined;
  const param = body?.reasoning_effort !== undefined ? "reasoning_effort" : "reasoning.effort";
  const allowed = /^gpt-5(\.\d+)?-codex/.test(model)
    ? ["low", "medium", "high"]
    : /^gpt-5\.\d/.test(model)
      ? ["none", "low", "medium", "high"]
      : /^gpt-5/.test(model)
        ? ["minimal", "low", "medium", "high"]
        : undefined;
  if (!allowed || allowed.includes(effort)) return undefined;
  const list = `${allowed
    .slice(0, -1)
    .map((word) => `'${word}'`)
    .join(", ")}, and '${allowed.at(-1)}'`;
  return {
    status: 400,
    body: openaiError(
      `Unsupported value: '${effort}' is not supported with the '${model}' model. Supported values are: ${list}.`,
      param,
      "unsupported_value",
    ),
    rule: `reasoning efforts ${model} takes`,
  };
};

/** Claude 3 and 3.5 take no thinking ("'claude-3-5-sonnet-20241022' does not support thinking.", anthropics/claude-code#2245). */
export const anthropicThinkingModels: Rule = (body) => {
  const model = String(body?.model ?? "");
  if (body?.thinking?.type !== "enabled" || !/^claude-3-(?!7)/.test(model)) return undefined;
  return {
    status: 400,
    body: { type: "error", error: { type: "invalid_request_error", message: `'${model}' does not support thinking.` } },
    rule: "no thinking on Claude 3 and 3.5",
  };
};

/**
 * Mistral: an assistant message between tool results and a new user message
 * ({"object":"error","message":"Unexpected role 'user' after role 'tool'","type":"invalid_request_message_order",
 * "param":null,"code":"3230"}: avante-corp/avante.nvim#2562; vLLM: mistralai/mistral-vibe#578).
 */
export const mistralRoleOrder: Rule = (body) => {
  const messages = messagesOf(body);
  const index = messages.findIndex((message, i) => message.role === "user" && messages[i - 1]?.role === "tool");
  if (index < 0) return undefined;
  return {
    status: 400,
    body: {
      object: "error",
      message: "Unexpected role 'user' after role 'tool'",
      type: "invalid_request_message_order",
      param: null,
      code: "3230",
    },
    rule: "no user message right after tool results",
  };
};

/**
 * Groq's text-only models (gpt-oss, Llama 3.x, Qwen, Kimi) take a message's content as a string only:
 * {"error":{"message":"message[4].content must be a string","type":"invalid_request_error"}}
 * (browser-use/browser-use#54, vercel/ai#2837); an image part is what makes it a list.
 */
export const groqTextOnly: Rule = (body) => {
  if (/vision|llama-4|scout|maverick/.test(String(body?.model ?? ""))) return undefined;
  const index = messagesOf(body).findIndex(
    (message) => Array.isArray(message.content) && message.content.some((part: any) => part.type !== "text"),
  );
  if (index < 0) return undefined;
  return {
    status: 400,
    body: { error: { message: `message[${index}].content must be a string`, type: "invalid_request_error" } },
    rule: "text only on Groq's text models",
  };
};

/** Tool names unique in a request (Anthropic: "tools: Tool names must be unique.", https://docs.claude.com/en/api/messages tools). */
export const uniqueToolNames: Rule = (body) => {
  const names = (body?.tools ?? []).map((tool: any) => tool.name ?? tool.function?.name).filter(Boolean);
  if (new Set(names).size === names.length) return undefined;
  return {
    status: 400,
    body: { type: "error", error: { type: "invalid_request_error", message: "tools: Tool names must be unique." } },
    rule: "unique tool names",
  };
};

/**
 * Gemini's OpenAI-compatible endpoint turns each function's `parameters` into Gemini's Schema and
 * refuses its open shapes below the top with the native text, in a body that is a JSON array
 * (`[{'error': {'code': 400, 'message': '* GenerateContentRequest.tools[0].function_declarations[0]
 * .parameters.properties[extracted_content].properties: should be non-empty for OBJECT type\n',
 * 'status': 'INVALID_ARGUMENT'}}]`, FoundationAgents/OpenManus#866; the array: n4ze3m/page-assist#418).
 * A top-level object without properties (a tool with no arguments) is not checked: no report shows
 * this endpoint refusing it.
 */
export const geminiCompatSchemas: Rule = (body) => {
  for (const [index, tool] of (body?.tools ?? []).entries()) {
    const properties = tool?.function?.parameters?.properties ?? {};
    for (const [name, child] of Object.entries(properties)) {
      const at = `tools[0].function_declarations[${index}].parameters.properties[${name}]`;
      const shape = findShapeProblem(child, at);
      if (shape)
        return {
          status: 400,
          body: [{ error: { code: 400, message: `* GenerateContentRequest.${shape}\n`, status: "INVALID_ARGUMENT" } }],
          rule: `Gemini's Schema shapes behind its OpenAI-compatible endpoint (${shape})`,
        };
    }
  }
  return undefined;
};

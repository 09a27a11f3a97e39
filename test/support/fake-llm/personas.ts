// Strict personas for the fake server: each refuses, with the real service's error body, what
// that service refuses, and signs its replies the way it does (so a test sees whether the
// signatures come back, to the same model only). Every rule names its source.

import type { PersonaState, Refusal, Rule } from "./persona-rules.ts";
import * as chat from "./persona-rules.ts";
import * as messages from "./persona-rules-messages.ts";
import * as models from "./persona-rules-models.ts";
import type { FixedStep, RecordedRequest, ReplySpec } from "./server.ts";
export interface Persona {
  name: string;
  /** The refusal of this request, if the real service would refuse it. */
  check(body: any, request: RecordedRequest): Refusal | undefined;
  /** The step's reply as this service writes it (signatures added and remembered). */
  decorate(step: FixedStep, request: RecordedRequest): FixedStep;
}

function persona(name: string, rules: Rule[], sign?: (reply: ReplySpec, signature: string) => ReplySpec): Persona {
  const state: PersonaState = { signatures: new Map(), count: 0 };
  return {
    name,
    check: (body) => rules.map((rule) => rule(body, state)).find((refusal) => refusal !== undefined),
    decorate(step, request) {
      if (!sign || !("reply" in step)) return step;
      const signature = `sig-${name}-${++state.count}-${Buffer.from(String(request.body?.model ?? modelOfPath(request.path))).toString("base64url")}`;
      state.signatures.set(signature, request.body?.model ?? modelOfPath(request.path));
      return { ...step, reply: sign(step.reply, signature) };
    },
  };
}

function modelOfPath(path: string): string {
  return /models\/([^:]+):/.exec(path)?.[1] ?? "";
}

// ---- The personas -----------------------------------------------------------------------------------

const signFirstCall =
  (extra: (signature: string) => Record<string, unknown>) => (reply: ReplySpec, signature: string) => ({
    ...reply,
    toolCalls: (reply.toolCalls ?? []).map((call, index) =>
      index === 0 ? { ...call, extra: extra(signature) } : call,
    ),
  });

export const PERSONAS = {
  openai: () =>
    persona(
      "openai",
      [chat.openaiToolCount, chat.openaiToolNames, chat.openaiIdLength, chat.responsesEncrypted, models.openaiEfforts],
      (reply, signature) => ({
        ...reply,
        signature,
      }),
    ),
  anthropic: () =>
    persona(
      "anthropic",
      [
        messages.anthropicShapes,
        messages.anthropicSignatures,
        messages.anthropicThinkingTurn,
        models.anthropicThinkingModels,
        models.uniqueToolNames,
      ],
      (reply, signature) => ({
        ...reply,
        signature,
      }),
    ),
  deepseek: () => persona("deepseek", [chat.deepseekReasoning, chat.openaiIdLength]),
  kimi: () => persona("kimi", [chat.kimiReasoning]),
  mistral: () => persona("mistral", [chat.mistralIds, chat.mistralExtraFields, models.mistralRoleOrder]),
  groq: () => persona("groq", [chat.groqExtraFields, chat.openaiToolNames, models.groqTextOnly]),
  openrouter: () =>
    persona("openrouter", [chat.openrouterDetails], (reply, signature) => ({
      ...reply,
      reasoningDetails: [{ type: "reasoning.encrypted", data: signature, format: "google-gemini-v1", index: 0 }],
    })),
  "gemini-openai": () =>
    persona(
      "gemini-openai",
      [chat.geminiCompatSignatures, chat.openaiToolNames, models.geminiCompatSchemas],
      signFirstCall((signature) => ({ extra_content: { google: { thought_signature: signature } } })),
    ),
  gemini: () =>
    persona(
      "gemini",
      [messages.geminiDeclarations, messages.geminiSignatures],
      signFirstCall((signature) => ({ thoughtSignature: signature })),
    ),
} satisfies Record<string, () => Persona>;

export type PersonaName = keyof typeof PERSONAS;

// One thinking control (`--thinking`, `/thinking`, config `thinking`) mapped onto each wire API,
// server and model. Pure: the adapters add the fields to their request body; a level the target
// cannot take is left out, and the notice says so once, instead of sending it blind.
import { defaultMaxTokens } from "./anthropic-request.ts";
import type { ApiKind } from "./wire-apis.ts";
import { assertNever } from "../core/messages.ts";

/** The words `--thinking` takes; a number is a token budget. */
export const THINKING_WORDS = ["off", "low", "medium", "high"] as const;

/** How much the model should think: a word, or a budget in tokens. */
export type ThinkingLevel = (typeof THINKING_WORDS)[number] | number;

/** The request fields that carry a level, or the notice why none are sent. */
export interface ThinkingPlan {
  fields: Record<string, unknown>;
  notice?: string;
}

/** What the mapping looks at (provider settings have it all). */
export interface ThinkingTarget {
  api: ApiKind;
  name: string;
  model: string;
  baseUrl: string;
  /** The configured output cap; Anthropic's budget must stay under the one requests carry. */
  maxTokens?: number;
  thinking?: ThinkingLevel;
}

/**
 * Anthropic budgets per level, each kept under max_tokens with room left for the answer.
 * Anthropic's minimum budget is 1024; high leaves about a quarter of Claude's default 32000 cap.
 */
const ANTHROPIC_BUDGETS = { low: 2048, medium: 8192, high: 24_576 } as const;
export const MIN_ANTHROPIC_BUDGET = 1024;
/** Output tokens a level's budget leaves for the answer when max_tokens is small. */
const ANSWER_ROOM = 1024;

/** The label the status line and `/thinking` show. */
export function describeThinking(level: ThinkingLevel | undefined): string {
  if (level === undefined) return "default";
  return typeof level === "number" ? `${level} tokens` : level;
}

/** A `--thinking` value or `/thinking` argument, or undefined when it is neither a word nor a budget. */
export function parseThinking(text: string): ThinkingLevel | undefined {
  const word = THINKING_WORDS.find((w) => w === text.trim().toLowerCase());
  if (word) return word;
  return /^[1-9]\d*$/.test(text.trim()) ? Number(text.trim()) : undefined;
}

/** The fields for the target's level; no level means the server's default, and nothing is sent. */
export function planThinking(target: ThinkingTarget): ThinkingPlan {
  const level = target.thinking;
  if (level === undefined) return { fields: {} };
  switch (target.api) {
    case "anthropic":
      return anthropicPlan(target, level);
    case "responses":
      // A summary is what the Responses API shows of the reasoning; without it, thinking stays hidden.
      return openaiPlan(target, level, (effort) => ({
        reasoning: effort === "none" ? { effort } : { effort, summary: "auto" },
      }));
    case "openai":
      return chatPlan(target, level);
    case "gemini":
      return geminiPlan(target, level);
    case "local":
      return leftOut(target, level, "the local provider has no thinking control");
    default:
      return assertNever(target.api);
  }
}

function anthropicPlan(target: ThinkingTarget, level: ThinkingLevel): ThinkingPlan {
  if (level === "off") return { fields: {} }; // Anthropic thinks only when asked to
  const maxTokens = target.maxTokens ?? defaultMaxTokens(target.model);
  const budget = typeof level === "number" ? level : Math.min(ANTHROPIC_BUDGETS[level], maxTokens - ANSWER_ROOM);
  // A flag's budget was refused with exit 2 already (config.ts); one typed in /thinking is told here.
  if (budget < MIN_ANTHROPIC_BUDGET || budget >= maxTokens)
    return leftOut(
      target,
      level,
      `Anthropic takes a budget of at least ${MIN_ANTHROPIC_BUDGET} tokens, below max_tokens (${maxTokens})`,
    );
  return { fields: { thinking: { type: "enabled", budget_tokens: budget } } };
}

/**
 * Chat completions: OpenRouter (by name or URL) has its own `reasoning` object; OpenAI's models
 * (by name: a gpt-5 behind a proxy is still OpenAI's) take `reasoning_effort`; a Qwen3 on a
 * server of one's own (vLLM, llama.cpp, SGLang pass `chat_template_kwargs` to the chat
 * template) switches thinking on or off. Anything else is left out: servers differ too much.
 */
function chatPlan(target: ThinkingTarget, level: ThinkingLevel): ThinkingPlan {
  if (target.name === "openrouter" || hostOf(target.baseUrl) === "openrouter.ai") {
    if (level === "off") return { fields: { reasoning: { enabled: false } } };
    return { fields: { reasoning: typeof level === "number" ? { max_tokens: level } : { effort: level } } };
  }
  if (isOpenAIModel(target.model)) return openaiPlan(target, level, (effort) => ({ reasoning_effort: effort }));
  if (!isSelfHosted(target.baseUrl) || isOllama(target))
    return leftOut(target, level, "no thinking control is known for this server");
  if (/qwen3/i.test(target.model) && !/2507/.test(target.model)) {
    if (typeof level === "number")
      return leftOut(target, level, "Qwen3's template switches thinking on or off; it takes no budget");
    return { fields: { chat_template_kwargs: { enable_thinking: level !== "off" } } };
  }
  return leftOut(target, level, "no thinking control is known for this model on this server");
}

/**
 * OpenAI's reasoning effort for a model, in the fields `fieldsFor` builds. gpt-5.1 and later
 * turn reasoning off with `none`, gpt-5 goes down to `minimal`, o-series models and gpt-oss no
 * lower than `low`; other GPT models do not reason. A budget has no OpenAI form.
 */
function openaiPlan(
  target: ThinkingTarget,
  level: ThinkingLevel,
  fieldsFor: (effort: string) => Record<string, unknown>,
): ThinkingPlan {
  const model = target.model.replace(/^openai\//, "");
  const isReasoning = /^(o\d|gpt-5|gpt-oss|codex)/.test(model) && !/chat/.test(model);
  if (!isReasoning && isOpenAIModel(model)) return leftOut(target, level, `${target.model} does not reason`);
  if (typeof level === "number")
    return leftOut(target, level, "OpenAI takes an effort (low, medium, high), not a token budget");
  if (level !== "off") return { fields: fieldsFor(level) };
  if (/^gpt-5\.\d/.test(model)) return { fields: fieldsFor("none") };
  if (/^gpt-5/.test(model)) return { fields: fieldsFor("minimal") };
  return leftOut(target, level, `${target.model} cannot turn its reasoning off (low is the least)`);
}

/** Gemini 2.5 budgets per level (https://ai.google.dev/gemini-api/docs/thinking#set-budget). */
const GEMINI_BUDGETS = { low: 1024, medium: 8192, high: 24_576 } as const;

/**
 * Gemini's `thinkingConfig` (generationConfig), with the thoughts' summaries asked for so they
 * can be shown. Gemini 3 takes a `thinkingLevel` (Pro: low or high; Flash also minimal and
 * medium) and cannot stop thinking; 2.5 takes a budget, 0 turns Flash's off, Pro's cannot be.
 * https://ai.google.dev/gemini-api/docs/thinking#thinking-levels
 */
function geminiPlan(target: ThinkingTarget, level: ThinkingLevel): ThinkingPlan {
  const config = (fields: Record<string, unknown>) => ({
    fields: { thinkingConfig: { ...fields, includeThoughts: true } },
  });
  if (typeof level === "number") return config({ thinkingBudget: level });
  if (/gemini-3/.test(target.model)) {
    const isFlash = /flash/.test(target.model);
    if (level === "off")
      return isFlash ? config({ thinkingLevel: "minimal" }) : leftOut(target, level, "Gemini 3 Pro always thinks");
    return config({ thinkingLevel: level === "medium" && !isFlash ? "high" : level });
  }
  if (level === "off")
    return /pro/.test(target.model)
      ? leftOut(target, level, "Gemini 2.5 Pro always thinks")
      : { fields: { thinkingConfig: { thinkingBudget: 0 } } };
  return config({ thinkingBudget: GEMINI_BUDGETS[level] });
}

function leftOut(target: ThinkingTarget, level: ThinkingLevel, why: string): ThinkingPlan {
  return {
    fields: {},
    notice: `--thinking ${describeThinking(level)} is left out for ${target.name} · ${target.model}: ${why}`,
  };
}

/** A model of OpenAI's, by its id (with or without a router's `openai/` prefix). */
function isOpenAIModel(model: string): boolean {
  return /^(openai\/)?(o\d|gpt-|chatgpt|codex)/.test(model);
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).hostname;
  } catch {
    return "";
  }
}

/** A server on this machine or a private network, where vLLM, llama.cpp and SGLang run. */
function isSelfHosted(baseUrl: string): boolean {
  const host = hostOf(baseUrl);
  return (
    /^(localhost|127\.|0\.0\.0\.0|\[::1\]|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/.test(host) ||
    host.endsWith(".local") ||
    baseUrl.startsWith("http:")
  );
}

/** Ollama's OpenAI-compatible layer ignores the fields above. */
function isOllama(target: ThinkingTarget): boolean {
  return target.name === "ollama" || /:11434\b/.test(target.baseUrl);
}

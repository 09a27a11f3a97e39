// The one thinking control (`--thinking`, `/thinking`, config `thinking`): its levels, what a plan
// for a wire API is, and the pieces the APIs' plans share. Each API's plan lives in its own request
// file and is named by its record (wire-apis.ts); thinking.ts picks the plan by the settings' API.
// Pure: a level the target cannot take is left out, and the notice says so once, instead of
// sending it blind.

/** The words `--thinking` takes; a number is a token budget. */
export const THINKING_WORDS = ["off", "low", "medium", "high"] as const;

/** How much the model should think: a word, or a budget in tokens. */
export type ThinkingLevel = (typeof THINKING_WORDS)[number] | number;

/** The request fields that carry a level, or the notice why none are sent. */
export interface ThinkingPlan {
  fields: Record<string, unknown>;
  notice?: string;
}

/** What a plan looks at (provider settings have it all). */
export interface PlanTarget {
  name: string;
  model: string;
  baseUrl: string;
  /** The configured output cap; Anthropic's budget must stay under the one requests carry. */
  maxTokens?: number;
  thinking?: ThinkingLevel;
}

/** One API's mapping of a level onto its request fields. */
export type ThinkingPlanner = (target: PlanTarget, level: ThinkingLevel) => ThinkingPlan;

/** The plan for the target's level; no level means the server's default, and nothing is sent. */
export function planWith(planner: ThinkingPlanner, target: PlanTarget): ThinkingPlan {
  return target.thinking === undefined ? { fields: {} } : planner(target, target.thinking);
}

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

/** No fields, and the notice that says why. */
export function leftOut(target: PlanTarget, level: ThinkingLevel, why: string): ThinkingPlan {
  return {
    fields: {},
    notice: `--thinking ${describeThinking(level)} is left out for ${target.name} · ${target.model}: ${why}`,
  };
}

/**
 * OpenAI's reasoning effort for a model, in the fields `fieldsFor` builds: one scale that its chat
 * completions and Responses APIs share. gpt-5.1 and later turn reasoning off with `none`, gpt-5
 * goes down to `minimal`, o-series models and gpt-oss no lower than `low`; other GPT models do
 * not reason. A budget has no OpenAI form.
 */
export function openaiEffortPlan(
  target: PlanTarget,
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

/** A model of OpenAI's, by its id (with or without a router's `openai/` prefix). */
export function isOpenAIModel(model: string): boolean {
  return /^(openai\/)?(o\d|gpt-|chatgpt|codex)/.test(model);
}

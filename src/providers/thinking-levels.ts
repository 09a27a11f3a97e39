// The one thinking control (`--thinking`, `/thinking`, config `thinking`): its levels, what a plan
// for a wire API is, and the pieces the APIs' plans share. Each API's plan lives in its own request
// file and is named by its record (wire-apis.ts); thinking.ts picks the plan by the settings' API.
// Pure: a level the target cannot take is left out, and the notice says so once, instead of
// sending it blind. What each model takes is the catalogue's (model-catalogue.ts).
import type { ModelEntry, ThinkingSpec } from "./catalogue/model-entry.ts";
import { modelFact } from "./model-catalogue.ts";

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
  /** config.json's catalogue entries, which may say what the model takes. */
  modelEntries?: readonly ModelEntry[];
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

/** The catalogue's word on the target's thinking (config.json's entries and the provider's first), if any. */
export function thinkingSpec(target: PlanTarget): ThinkingSpec | false | undefined {
  return modelFact({ model: target.model, provider: target.name, configured: target.modelEntries }, "thinking")?.value;
}

/** The scale efforts lie on, least first. */
const EFFORT_SCALE = ["none", "minimal", "low", "medium", "high", "xhigh"];

/** The word of `efforts` nearest `level` on the scale (a tie goes up): what a model that takes fewer is sent. */
function nearestEffort(efforts: readonly string[], level: string): string {
  const at = (word: string) => EFFORT_SCALE.indexOf(word);
  return [...efforts].sort((a, b) => Math.abs(at(a) - at(level)) - Math.abs(at(b) - at(level)) || at(b) - at(a))[0];
}

/** A level as a model with a list of words takes it: the word itself, else the nearest, said once. */
export function effortFor(
  target: PlanTarget,
  efforts: readonly string[] | undefined,
  level: Exclude<ThinkingLevel, number | "off">,
): { effort: string; notice?: string } {
  if (!efforts || efforts.includes(level)) return { effort: level };
  const effort = nearestEffort(efforts, level);
  return {
    effort,
    notice: `--thinking ${level} is sent as ${effort} for ${target.name} · ${target.model}: it takes ${efforts.join(", ")}`,
  };
}

/**
 * OpenAI's reasoning effort for a model, in the fields `fieldsFor` builds: one scale that its chat
 * completions and Responses APIs share. What each model takes, and what `off` is for it, is the
 * catalogue's (catalogue/openai-models.ts); a model it does not know is sent the level as asked,
 * and `off` is left out. A budget has no OpenAI form.
 */
export function openaiEffortPlan(
  target: PlanTarget,
  level: ThinkingLevel,
  fieldsFor: (effort: string) => Record<string, unknown>,
): ThinkingPlan {
  const spec = thinkingSpec(target);
  if (spec === false) return leftOut(target, level, `${target.model} does not reason`);
  if (typeof level === "number")
    return leftOut(target, level, "OpenAI takes an effort (low, medium, high), not a token budget");
  if (level !== "off") {
    const { effort, notice } = effortFor(target, spec?.efforts, level);
    return { fields: fieldsFor(effort), ...(notice ? { notice } : {}) };
  }
  if (typeof spec?.off === "string") return { fields: fieldsFor(spec.off) };
  const least = spec?.efforts?.[0] ?? "low";
  return leftOut(target, level, `${target.model} cannot turn its reasoning off (${least} is the least)`);
}

/** A model of OpenAI's, by its id (with or without a router's `openai/` prefix). */
export function isOpenAIModel(model: string): boolean {
  return /^(openai\/)?(o\d|gpt-|chatgpt|codex)/.test(model);
}

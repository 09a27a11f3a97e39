// The thinking plan for a provider's settings: its API's planner, from its record (wire-apis.ts).
// The levels and the pieces the planners share are thinking-levels.ts; each planner is in its
// API's request file, so adding an API adds no case here.
import { type PlanTarget, planWith, type ThinkingPlan } from "./thinking-levels.ts";
import { type ApiKind, apiRecord } from "./wire-apis.ts";

/** What the mapping looks at (provider settings have it all). */
export interface ThinkingTarget extends PlanTarget {
  api: ApiKind;
}

/** The fields for the target's level; no level means the server's default, and nothing is sent. */
export function planThinking(target: ThinkingTarget): ThinkingPlan {
  return planWith(apiRecord(target.api).thinking, target);
}

// What the person does with a plan the model proposed in plan mode (docs/plan-mode.md): the chat
// has shown it rendered (the renderer draws the `done` event's plan as it draws a one-shot
// answer); this asks the four choices the plan mode offers and returns the prompt that follows.
import { CARRY_OUT_PROMPT } from "../shared/plan-prompts.ts";
import type { Palette } from "./colors.ts";

/** The chat's approval modes, as the CLI wiring keeps them (cli/chat-modes.ts). */
export interface ChatModeControls {
  /** The mode now (`ask`, `edits`, `plan`, `all`). */
  current(): string;
  /** The status line's part (`plan mode`); undefined in the default mode, `ask`. */
  statusPart(): string | undefined;
  /** Shift-Tab: the next mode; returns the line that says which and what it means. */
  cycleMode(): string;
  /** `/mode <name>`; throws naming the modes for another word. */
  setMode(mode: string): string;
  /** The mode now and what it means. */
  describe(): string;
  /** The mode carrying a plan out goes back to. */
  modeAfterPlan(): string;
  /** Leaves plan mode for the mode before it; says so. */
  carryOut(): string;
  /** Starts a new session and leaves plan mode; says so. */
  carryOutFresh(): string;
}

/** What the person answers to a plan: `ask` puts a question and returns the answer (undefined: none). */
interface PlanChoiceOptions {
  ask(question: string): Promise<string | undefined>;
  say(line: string): void;
  colors: Palette;
  modes: ChatModeControls;
}

/** The first message of a fresh context: the plan, whole. */
function freshContextPrompt(plan: string): string {
  return `Carry out this plan, which was made and approved in an earlier conversation:\n\n${plan}`;
}

/** Feedback on a plan: the model keeps planning, still in plan mode. */
function feedbackPrompt(feedback: string): string {
  return `The plan is not approved yet. Keep planning, then propose it again with the plan tool. My feedback: ${feedback}`;
}

/**
 * Asks what follows the plan: carry it out here (the mode back to what it was, the plan in the
 * context), carry it out in a fresh context (a new session whose first message is the plan),
 * keep planning with feedback (`3 <feedback>`, or asked for), or stop (an empty answer: nothing
 * runs, as an empty answer to an approval is a no). Returns the prompt to run next, if any.
 */
export async function choosePlanNext(plan: string, options: PlanChoiceOptions): Promise<string | undefined> {
  const { ask, say, colors, modes } = options;
  const back = modes.modeAfterPlan();
  const answer = await ask(
    `${colors.bold("the plan:")} 1 carry it out (${back} mode) · 2 in a fresh context (${back} mode) · 3 keep planning · 4 stop\n${colors.bold("choose [1-4, 3 <feedback>]: ")}`,
  );
  const [choice, ...words] = (answer ?? "").trim().split(/\s+/);
  switch (choice) {
    case "1":
      say(modes.carryOut());
      return CARRY_OUT_PROMPT;
    case "2":
      say(modes.carryOutFresh());
      return freshContextPrompt(plan);
    case "3": {
      const feedback = words.join(" ") || ((await ask(colors.bold("what should change? "))) ?? "").trim();
      if (feedback === "") break;
      return feedbackPrompt(feedback);
    }
    default:
      break;
  }
  say(`stopped, nothing runs; ${modes.describe()}`);
  return undefined;
}

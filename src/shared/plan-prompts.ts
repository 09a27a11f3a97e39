// What the person's answer to a proposed plan says to the model (plan mode, docs/plan-mode.md): the
// same words from the chat (ui/plan-choice.ts) and from an editor (acp/plan-approval.ts).

/** The prompt a plan is carried out with, in the conversation that made it. */
export const CARRY_OUT_PROMPT = "The plan is approved. Carry it out now.";

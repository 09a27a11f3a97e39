// Reading the answer to an approval question so that it cannot be misread: the common ways of
// saying yes run the call, a refusal's reason for the model is asked for on its own line (or
// given after "no"), and anything else is asked again rather than taken as a refusal whose
// reason is the word "ok".
import type { ApprovalAnswer } from "../permissions/approver.ts";

/** What a typed answer means: an answer, a request to type the reason next, or not an answer at all. */
export type ReadAnswer = ApprovalAnswer | { type: "ask-reason" } | { type: "unclear" };

/** Decision: the yes-words people type at such questions (Claude Code and pi take a key; we take both). */
const YES = new Set([
  "y",
  "yes",
  "yes please",
  "yep",
  "yeah",
  "yup",
  "ok",
  "okay",
  "k",
  "sure",
  "go",
  "go ahead",
  "do it",
  "run it",
  "allow",
  "approve",
  "proceed",
  "fine",
  "👍",
]);
const NO = new Set(["", "n", "no", "nope", "nah", "deny", "don't", "do not", "stop", "cancel", "skip"]);
const ALWAYS = new Set(["a", "always", "always allow"]);
const PROJECT = new Set(["p", "project", "always for this project"]);
/** "no, use rg instead" / "n: not now": a refusal with its reason after it. */
const NO_BECAUSE = /^(?:n|no|nope)\s*[,:;.!-]\s*(\S.*)$|^(?:n|no|nope)\s+(\S.*)$/is;

/**
 * The meaning of one typed answer (`canRemember`: "always" has a rule to add; else it allows this
 * call once; `canSave`: "project" is offered, else it is not an answer).
 */
export function readApprovalAnswer(typed: string, canRemember: boolean, canSave = false): ReadAnswer {
  const answer = typed.trim();
  const word = answer
    .toLowerCase()
    .replace(/[.!]+$/, "")
    .replace(/\s+/g, " ");
  if (YES.has(word)) return { type: "yes" };
  if (ALWAYS.has(word)) return canRemember ? { type: "always" } : { type: "yes" };
  if (PROJECT.has(word) && canSave) return { type: "project" };
  if (NO.has(word)) return { type: "no" };
  if (word === "r" || word === "reason") return { type: "ask-reason" };
  const because = NO_BECAUSE.exec(answer);
  if (because) return { type: "no", reason: (because[1] ?? because[2]).trim() };
  return { type: "unclear" };
}

// What the editor is shown when the host's policy leaves a call open: the buttons (an "always"
// only where the policy names what it would add) and the text under the call.
import type { PermissionOption } from "@agentclientprotocol/sdk";

/**
 * What the host's permission policy puts to the editor about one call: why it asks, whether only
 * this once can allow it, and the rules an "always" would add (none: no "always" is offered).
 */
export interface EditorQuestion {
  why?: string;
  explicit?: true;
  remember: string[];
  /** The change an edit would make, as a unified diff. */
  diff?: string;
}

/** The buttons: "always" only where the policy names what it would add. */
export function permissionOptions(question: EditorQuestion): PermissionOption[] {
  return [
    { optionId: "allow_once", name: question.explicit ? "Allow this once" : "Allow", kind: "allow_once" },
    ...(question.remember.length > 0
      ? [
          {
            optionId: "allow_always",
            name: `Always allow ${question.remember.join(", ")}`,
            kind: "allow_always" as const,
          },
        ]
      : []),
    { optionId: "reject_once", name: "Reject", kind: "reject_once" },
  ];
}

/** What the editor shows under the call: why it asks, what "always" would add, the change. */
export function questionText(question: EditorQuestion): string {
  const lines = [
    question.why ? `Asks because ${question.why}.` : "Asks because the approval mode asks before this kind of call.",
    question.explicit
      ? 'Only you can allow this, and only this once: no "always", mode or allow rule covers it.'
      : question.remember.length > 0
        ? `"Always" would allow ${question.remember.join(", ")} for the rest of this session.`
        : "",
  ];
  return [...lines.filter(Boolean), ...(question.diff ? ["", question.diff] : [])].join("\n");
}

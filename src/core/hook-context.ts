// What a hook adds to a prompt for the model (UserPromptSubmit, SessionStart, SubagentStart) goes
// after the person's words, each text in the tag Claude Code gives it, so the model reads it as
// the hook's words. The stored message holds both; whatever shows a prompt back to the person
// (the chat's replay, the session list) shows their own words and names the hook's apart.

/** The tags of hook context, by the event that adds it. */
type HookContextTag = "user-prompt-submit-hook" | "session-start-hook" | "subagent-start-hook";

const TAGS: readonly HookContextTag[] = ["user-prompt-submit-hook", "session-start-hook", "subagent-start-hook"];

/** `text` as a hook's context: after a blank line, in its tag. */
export function hookContext(tag: HookContextTag, text: string): string {
  return `\n\n<${tag}>\n${text}\n</${tag}>`;
}

/** A prompt's text split into the person's words and the hooks' tagged context after them. */
export function splitHookContext(text: string): { said: string; added: HookContextTag[] } {
  const added: HookContextTag[] = [];
  let said = text;
  for (;;) {
    const last = TAGS.find((tag) => said.trimEnd().endsWith(`</${tag}>`));
    const start = last ? said.lastIndexOf(`\n\n<${last}>\n`) : -1;
    if (!last || start < 0) return { said: said.trimEnd(), added: added.reverse() };
    added.push(last);
    said = said.slice(0, start);
  }
}

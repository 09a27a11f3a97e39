// The system prompt with this machine's facts (folder, platform, date), for the session and its subagents.
import { buildSystemPrompt, type PromptOverrides } from "../core/system-prompt.ts";
import type { Tool } from "../core/tool.ts";
import type { Skill } from "../prompts/skills.ts";

/** The system prompt with this machine's facts: the one place they are gathered. */
export function systemPromptFor(
  cwd: string,
  tools: Tool[],
  overrides: PromptOverrides | undefined,
  skills: Skill[],
  instructions: string,
): string {
  const machine = {
    cwd,
    platform: `${process.platform} ${process.arch}`,
    shell: "bash",
    date: new Date().toISOString().slice(0, 10),
  };
  const toolNames = tools.map((tool) => tool.name);
  return buildSystemPrompt(machine, toolNames, overrides, skills, instructions);
}

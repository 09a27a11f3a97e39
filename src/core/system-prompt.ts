import { relative, sep } from "node:path";
import { loadInstructions } from "./instruction-files.ts";

// Where the folder chain and the instructions' cap live; settings, skills and agents walk the same chain.
export { foldersFromRoot, MAX_INSTRUCTIONS_BYTES } from "./instruction-files.ts";

/** Facts about the machine the prompt states; passed in so the prompt is testable. */
export interface Environment {
  cwd: string;
  platform: string;
  shell: string;
  date: string;
}

/** What the user puts in the prompt themselves (`--system-prompt`, `--append-system-prompt`). */
export interface PromptOverrides {
  /** Replaces harness's own words (who it is, the guidelines); the facts and instructions stay. */
  replace?: string;
  /** Added at the very end, after the project's instructions. */
  append?: string;
}

/** A skill as the prompt lists it (src/prompts/skills.ts finds them). */
export interface PromptSkill {
  name: string;
  description: string;
  /** Its SKILL.md, absolute. */
  path: string;
}

/**
 * The system prompt: who the agent is, where it runs, how to use its tools well, and the
 * instruction files (core/instruction-files.ts). Every byte is sent on every request, so it stays short.
 * A replacement (`overrides.replace`) takes the place of the first and the third: the working
 * directory and the project's instructions are facts the tools and the user's files rely on,
 * so they stay (as pi does with its --system-prompt).
 */
export function buildSystemPrompt(
  env: Environment,
  toolNames: string[],
  overrides: PromptOverrides = {},
  skills: PromptSkill[] = [],
  instructions: string = loadInstructions(env.cwd),
): string {
  const facts = `Working directory: ${env.cwd}. OS: ${env.platform}. Shell: ${env.shell}. Date: ${env.date}.`;
  const lines =
    overrides.replace !== undefined ? [overrides.replace.trimEnd(), "", facts] : [...ownWords(toolNames, facts)];
  if (instructions) lines.push("", instructions);
  if (skills.length > 0) lines.push("", ...skillLines(skills, env.cwd));
  if (overrides.append?.trim()) lines.push("", overrides.append.trimEnd());
  return lines.join("\n");
}

/**
 * Progressive disclosure: a skill costs one line (name, description, where its file is) until
 * the model reads the file because the task matches.
 */
function skillLines(skills: PromptSkill[], cwd: string): string[] {
  const shown = (file: string) => (file.startsWith(cwd + sep) ? relative(cwd, file) : file);
  return [
    "Skills: instructions for particular tasks. When a task matches a skill's description, read its file with read_file first and follow it; paths in it are relative to its folder.",
    ...skills.map((skill) => `- ${skill.name}: ${skill.description} (${shown(skill.path)})`),
  ];
}

/** Harness's own part: who it is, the facts, the guidelines. */
function ownWords(toolNames: string[], facts: string): string[] {
  const lines = [
    "You are harness, a coding agent working in the user's terminal. Do the task with the tools, check the result, then answer briefly.",
    facts,
    "",
    "Guidelines:",
    "- Look before you change: read files and search the code rather than guess.",
    "- Run independent tool calls in one reply; they run in parallel.",
    "- Verify your work (run the tests, the build or the program) before you say it is done.",
    "- Keep answers short; show code only when asked. Never invent tool output.",
  ];
  if (toolNames.includes("edit_file"))
    lines.push("- Prefer read_file, edit_file, grep and glob over shell equivalents: they are cheaper and safer.");
  if (toolNames.includes("bash"))
    lines.push(
      "- bash has no stdin: use non-interactive flags (-y, --no-pager). Long outputs are cut; filter them (head, grep).",
    );
  return lines;
}

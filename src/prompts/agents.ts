// Named agents for the task tool: Markdown files whose front matter gives `name`, `description`,
// `tools` and `model`, and whose body is the agent's instructions. This is Claude Code's
// `.claude/agents/*.md` format, so an existing library works as it is; its tool names (Read,
// Bash, ...) are read as ours.
//
// Where they come from, in the order a name is taken (the first one found wins, later ones with
// the same name are reported and left out): the project's `.harness/agents` and `.claude/agents`
// in the working directory and its parents up to the repository root, nearest first; then the
// user's `$HARNESS_HOME/agents` and `~/.claude/agents`. The project wins, as in Claude Code: an
// agent adds no power (its tools are within the parent's, each call approved as usual), so,
// like AGENTS.md, a project's agents need no folder trust.
import path from "node:path";
import { foldersFromRoot } from "../core/instruction-files.ts";
import { harnessToolName } from "../settings/tool-names.ts";
import { namesIn } from "./folder-names.ts";
import { oneLine, parseFrontMatter } from "./front-matter.ts";
import { readPromptFile } from "./prompt-file.ts";

/** The folders agent files live in, under a project folder or the home folder. */
const AGENT_FOLDERS = [".harness/agents", ".claude/agents"];
/** An agent file larger than this is not read (it is a page of instructions). */
const MAX_AGENT_FILE_BYTES = 256 * 1024;
/** Agents found at most. */
const MAX_AGENTS = 50;

/** One named agent. */
export interface NamedAgent {
  name: string;
  description: string;
  /** Our tool names; absent: the task tool's default (the read-only tools). */
  tools?: string[];
  /** A model id on the session's provider; absent: the parent's model. */
  model?: string;
  /** `worktree` (Claude Code's `isolation: worktree`): each run in a git worktree of its own. */
  isolation?: "worktree";
  /** Its instructions (the file's body). */
  prompt: string;
  path: string;
}

export interface AgentPlaces {
  cwd: string;
  harnessHome: string;
  home: string;
}

/** Finds every named agent; problems (no description, a repeated name) go to `warn`. */
export function findAgents(places: AgentPlaces, warn: (message: string) => void): NamedAgent[] {
  const userRoots = [path.join(places.harnessHome, "agents"), path.join(places.home, ".claude/agents")];
  const projectRoots = foldersFromRoot(places.cwd)
    .reverse()
    .flatMap((folder) => AGENT_FOLDERS.map((name) => path.join(folder, name)))
    .filter((root) => !userRoots.includes(root));
  const agents: NamedAgent[] = [];
  const repositoryRoot = foldersFromRoot(places.cwd)[0];
  for (const root of [...projectRoots, ...userRoots]) {
    for (const agent of agentsIn(root, userRoots.includes(root) ? undefined : repositoryRoot, warn)) {
      const first = agents.find((other) => other.name === agent.name);
      if (first) warn(`agent ${agent.name} in ${agent.path} left out: ${first.path} has the same name`);
      else if (agents.length < MAX_AGENTS) agents.push(agent);
    }
  }
  return agents;
}

/** The agents in `root`; a project's (`repositoryRoot` given) only from files inside the repository. */
function agentsIn(root: string, repositoryRoot: string | undefined, warn: (message: string) => void): NamedAgent[] {
  const agents: NamedAgent[] = [];
  for (const entry of namesIn(root).filter((name) => name.endsWith(".md"))) {
    const file = path.join(root, entry);
    const agent = readAgent(file, entry.slice(0, -".md".length), repositoryRoot);
    if (typeof agent === "string") warn(`agent ${file} left out: ${agent}`);
    else agents.push(agent);
  }
  return agents;
}

/** The agent in `file`, or why it is left out. */
function readAgent(file: string, fileName: string, repositoryRoot: string | undefined): NamedAgent | string {
  const read = readPromptFile(file, MAX_AGENT_FILE_BYTES, repositoryRoot);
  if ("leftOut" in read) return read.leftOut;
  const { fields, body } = parseFrontMatter(read.text);
  const name = oneLine(fields.name ?? "") || fileName;
  if (!/^[\w.-]+$/.test(name)) return `its name "${name}" is not one word (letters, digits, - _ .)`;
  const description = oneLine(fields.description ?? "");
  if (!description) return "its front matter has no description (the model chooses an agent by it)";
  const model = oneLine(fields.model ?? "");
  const isolation = oneLine(fields.isolation ?? "");
  if (isolation && isolation !== "worktree") return `its isolation "${isolation}" is not one harness has (worktree)`;
  return {
    name,
    description,
    ...(fields.tools?.trim() ? { tools: toolNamesOf(fields.tools) } : {}),
    ...(model ? { model } : {}),
    ...(isolation ? { isolation: "worktree" as const } : {}),
    prompt: body.trim(),
    path: file,
  };
}

/** `Read, Grep, Glob`, `[read_file, bash]` or a YAML list, as our tool names. */
function toolNamesOf(value: string): string[] {
  const names = value
    .replace(/[[\]]/g, " ")
    .split(/[,\s]+/)
    .filter((name) => name && name !== "-");
  return [...new Set(names.map(harnessToolName))];
}

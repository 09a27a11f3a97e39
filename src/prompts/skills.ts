// Agent Skills (the open SKILL.md format: a folder whose SKILL.md starts with front matter
// `name` and `description`). Only the name, the description and the path go into the system
// prompt; the model reads the body, and files beside it, with read_file when a skill applies.
//
// Where they come from, in the order a name is taken (the first one found wins, later ones
// with the same name are reported and left out):
// - the user's own: $HARNESS_HOME/skills, ~/.claude/skills, ~/.agents/skills (what the user
//   installed wins over what a repository brings);
// - the project's: .harness/skills, .claude/skills and .agents/skills in the working directory
//   and its parents up to the repository root, nearest first. They are a repository's text the
//   model follows, so they count only in a trusted folder (permissions/folder-trust.ts).
import path from "node:path";
import { foldersFromRoot } from "../core/instruction-files.ts";
import { cutWithEllipsis } from "../shared/helpers.ts";
import { realOrSame } from "../shared/real-path.ts";
import { namesIn } from "./folder-names.ts";
import { oneLine, parseFrontMatter } from "./front-matter.ts";
import { readPromptFile } from "./prompt-file.ts";

/** The folders other agents keep skills in, under a project folder or the home folder. */
const SKILL_FOLDERS = [".harness/skills", ".claude/skills", ".agents/skills"];
/** Skills listed in the prompt at most: each costs a line on every request. */
export const MAX_SKILLS = 100;

/** One skill: what the prompt lists. */
export interface Skill {
  name: string;
  description: string;
  /** The SKILL.md file, absolute. */
  path: string;
  /** From the repository rather than the user's own folders. */
  isProject: boolean;
}

/** The user's and the project's skills, each list already free of repeated names. */
export interface FoundSkills {
  user: Skill[];
  project: Skill[];
}

export interface SkillPlaces {
  cwd: string;
  harnessHome: string;
  home: string;
}

/** Finds every skill; problems (no description, a repeated name) go to `warn`. */
export function findSkills(places: SkillPlaces, warn: (message: string) => void): FoundSkills {
  const userRoots = [
    path.join(places.harnessHome, "skills"),
    ...SKILL_FOLDERS.slice(1).map((folder) => path.join(places.home, folder)),
  ];
  const projectRoots = foldersFromRoot(places.cwd)
    .reverse()
    .flatMap((folder) => SKILL_FOLDERS.map((name) => path.join(folder, name)))
    .filter((root) => !userRoots.includes(root)); // the home folder as a project: its skills are the user's
  const user = dedupe(
    userRoots.flatMap((root) => skillsIn(root, undefined, warn)),
    [],
    warn,
  );
  return {
    user,
    project: dedupe(
      projectRoots.flatMap((root) => skillsIn(root, foldersFromRoot(places.cwd)[0], warn)),
      user,
      warn,
    ),
  };
}

/** The skills a session uses: the user's, and the project's when the folder is trusted. */
export function activeSkills(found: FoundSkills, isProjectTrusted: boolean): Skill[] {
  return [...found.user, ...(isProjectTrusted ? found.project : [])].slice(0, MAX_SKILLS);
}

/** The skills in `root`; a project's (`repositoryRoot` given) only from SKILL.md files inside the repository, since the model may read a skill's folder without asking. */
function skillsIn(root: string, repositoryRoot: string | undefined, warn: (message: string) => void): Skill[] {
  const skills: Skill[] = [];
  for (const entry of namesIn(root)) {
    const file = path.join(root, entry, "SKILL.md");
    const skill = readSkill(file, entry, repositoryRoot);
    if (typeof skill === "string") {
      if (skill) warn(`skill ${file} left out: ${skill}`);
    } else skills.push(skill);
  }
  return skills;
}

/** A SKILL.md larger than this is not read (it is meant to be a page of instructions). */
const MAX_SKILL_FILE_BYTES = 256 * 1024;
/** A description longer than this is cut in the prompt (the format allows 1024 characters). */
const MAX_DESCRIPTION_CHARS = 1024;

/** The skill in `file`, or why it is left out ("" when there is no SKILL.md at all). */
function readSkill(file: string, folderName: string, repositoryRoot: string | undefined): Skill | string {
  const read = readPromptFile(file, MAX_SKILL_FILE_BYTES, repositoryRoot);
  // A folder without a SKILL.md is no skill, and says nothing.
  if ("leftOut" in read) return read.isUnreadable ? "" : read.leftOut;
  const { fields } = parseFrontMatter(read.text);
  const name = oneLine(fields.name ?? "") || folderName;
  const description = oneLine(fields.description ?? "");
  if (!description) return "its front matter has no description (the model chooses a skill by it)";
  return {
    name,
    description: cutWithEllipsis(description, MAX_DESCRIPTION_CHARS),
    path: realOrSame(file),
    isProject: repositoryRoot !== undefined,
  };
}

function dedupe(skills: Skill[], taken: Skill[], warn: (message: string) => void): Skill[] {
  const kept: Skill[] = [];
  for (const skill of skills) {
    const first = [...taken, ...kept].find((other) => other.name === skill.name);
    if (!first) kept.push(skill);
    else if (first.path !== skill.path)
      warn(`skill ${skill.name} in ${skill.path} left out: ${first.path} has the same name`);
  }
  return kept;
}

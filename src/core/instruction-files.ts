// The instruction files added to the system prompt: the user's own (for every project), then the
// project's from the repository root down to the working directory, each followed by the files it
// imports with `@path` (as Claude Code's CLAUDE.md imports: relative to the importing file, `~/`,
// or absolute; at most MAX_IMPORT_HOPS deep; never inside a code span or block).
//
// What a file may reach depends on whose it is. A repository is someone else's text: its files
// and what they import count only when their real path (links followed) stays inside the
// repository, so a cloned AGENTS.md that links to ~/.ssh/id_rsa, or that imports
// @~/.aws/credentials, sends nothing. Such a file is refused with a notice rather than followed
// to the user's own files: a repository has no business choosing which of the user's files the
// model reads. The user's own files may import from the home folder. Neither ever reads a
// credential path (permissions/secret-paths.ts, passed in as `secretPaths`) or harness's state.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative } from "node:path";
import { isInside } from "../shared/is-inside.ts";
import { mentionsIn, resolveMention } from "../shared/mentions.ts";
import { whyOutOfReach } from "../shared/path-reach.ts";
import { readRegularFile } from "../shared/read-regular-file.ts";
import { realOrSame } from "../shared/real-path.ts";

/** Instructions are paid on every request: everything together (imports too) is capped. */
export const MAX_INSTRUCTIONS_BYTES = 32 * 1024;
/** How deep imports are followed: Claude Code's limit (its memory docs: "a maximum depth of five hops"). */
export const MAX_IMPORT_HOPS = 5;
/** Files imported at most, however small, so a chain of tiny files cannot make the start read thousands. */
const MAX_IMPORTED_FILES = 50;
/**
 * A project folder's instruction files, in the order they speak: AGENTS.md, CLAUDE.md, then
 * CLAUDE.local.md (Claude Code's personal, git-ignored file). All of them: a project with both
 * AGENTS.md and CLAUDE.md (after /init wrote one beside the other) lost CLAUDE.md and its imports
 * when only the first was read. A link to, an import of, or a copy of a file already read adds
 * nothing (InstructionReader reads each real file and each text once).
 */
const PROJECT_FILES = ["AGENTS.md", "CLAUDE.md", "CLAUDE.local.md"];

/** Where the user's instruction files are, and what no instruction file may read. */
export interface InstructionPlaces {
  /** The home folder: `~/` in an import, and what the user's own files may import from. */
  home: string;
  /** Harness's state folder: its AGENTS.md is the user's instructions for every project. */
  harnessHome: string;
  /** Paths nothing is read from, however it is named: credentials and harness's own state. */
  secretPaths: readonly string[];
  /** Told about each file or import left out, and why. */
  warn(message: string): void;
}

/** Whose text a file is: what it, and what it imports, may reach. */
interface Scope {
  /** Real paths an import may resolve into. */
  roots: string[];
  owner: "user" | "repository";
}

/** A file to read, and the file that imported it. */
interface Section {
  file: string;
  importedBy?: string;
}

/**
 * The user's instruction files for every project: Claude Code's, then harness's own (which speaks
 * later). Both, unlike a project folder's pair: they are two programs' files, often written apart,
 * and leaving one out would drop instructions without a word; one that links to or imports the
 * other is read once.
 */
function userFilesOf(places: InstructionPlaces): string[] {
  return [join(places.home, ".claude", "CLAUDE.md"), join(places.harnessHome, "AGENTS.md")];
}

/**
 * The user's instruction files, then each folder's (PROJECT_FILES) from the repository root down
 * to `cwd`, each followed by its imports; outermost first, so the nearest
 * file speaks last. Capped at MAX_INSTRUCTIONS_BYTES in all.
 */
export function loadInstructions(cwd: string, places?: InstructionPlaces): string {
  const folders = foldersFromRoot(cwd);
  const repository: Scope = { roots: [realOrSame(folders[0])], owner: "repository" };
  const reader = new InstructionReader(places ?? { home: homedir(), secretPaths: [], warn: () => {} }, cwd, folders[0]);
  for (const file of places ? userFilesOf(places) : [])
    reader.add(file, { roots: [realOrSame(reader.home)], owner: "user" });
  for (const folder of folders) for (const name of PROJECT_FILES) reader.add(join(folder, name), repository);
  return reader.joined();
}

/** Reads files and their imports into sections, each real file once, within the byte cap. */
class InstructionReader {
  private readonly sections: string[] = [];
  private readonly seen = new Set<string>();
  /** The texts taken: a copy of a file already read (CLAUDE.md as a copy of AGENTS.md) is not sent twice. */
  private readonly texts = new Set<string>();
  private bytes = 0;
  private imported = 0;
  private isFull = false;

  constructor(
    private readonly where: Omit<InstructionPlaces, "harnessHome">,
    private readonly cwd: string,
    private readonly repositoryRoot: string,
  ) {}

  get home(): string {
    return this.where.home;
  }

  isRegularFile(file: string): boolean {
    return readRegularFile(file, 0) !== undefined;
  }

  /**
   * A top-level file. The user's is taken as the user placed it (a link into a dotfiles folder is
   * common, and it lives in $HARNESS_HOME, a secret path to everyone else); a repository's only
   * when it stays inside the repository and off the secret paths.
   */
  add(file: string, scope: Scope): void {
    if (!this.isRegularFile(file)) return;
    const why = scope.owner === "user" ? undefined : this.whyRefused(file, scope);
    if (why) this.where.warn(`${this.shown(file)} left out: ${why}`);
    else this.take({ file }, scope, 0);
  }

  joined(): string {
    return this.sections.join("\n\n");
  }

  private take(section: Section, scope: Scope, hops: number): void {
    const real = realOrSame(section.file);
    if (this.isFull || this.seen.has(real)) return;
    this.seen.add(real);
    const head = readRegularFile(real, MAX_INSTRUCTIONS_BYTES); // the path judged, not the link again
    if (!head) return;
    let text = head.bytes.toString("utf8").trim();
    if (this.texts.has(text)) return;
    this.texts.add(text);
    const by = section.importedBy ? ` (imported by ${this.shown(section.importedBy)})` : "";
    const header = `# Instructions from ${this.shown(section.file)}${by}\n`;
    const budget = MAX_INSTRUCTIONS_BYTES - this.bytes - Buffer.byteLength(header);
    if (budget <= 0) {
      this.isFull = true;
      return;
    }
    if (head.size > head.bytes.length || Buffer.byteLength(text) > budget) {
      text = `${Buffer.from(text).subarray(0, budget).toString("utf8")}\n[cut: instruction files are capped at ${MAX_INSTRUCTIONS_BYTES} bytes]`;
      this.isFull = true;
    }
    this.sections.push(header + text);
    this.bytes += Buffer.byteLength(header) + Buffer.byteLength(text);
    if (hops < MAX_IMPORT_HOPS) this.importsOf(section.file, text, scope, hops + 1);
  }

  private importsOf(file: string, text: string, scope: Scope, hops: number): void {
    for (const name of importsIn(text)) {
      if (this.imported >= MAX_IMPORTED_FILES) return;
      const target = resolveMention(name, dirname(file), this.where.home);
      if (!this.isRegularFile(target)) continue; // `@someone`, a folder: not an import
      const why = this.whyRefused(target, scope);
      if (why) {
        this.where.warn(`${this.shown(file)}: @${name} not imported: ${why}`);
        continue;
      }
      this.imported++;
      this.take({ file: target, importedBy: file }, scope, hops);
    }
  }

  private whyRefused(file: string, scope: Scope): string | undefined {
    return whyOutOfReach(file, {
      secretPaths: this.where.secretPaths,
      roots: scope.roots,
      rootsName: scope.owner === "repository" ? "the repository" : "the home folder",
    });
  }

  /** A file as a header or a notice names it: relative to the working directory inside the repository, else from `~`, else absolute. */
  private shown(file: string): string {
    if (isInside(file, this.repositoryRoot)) return relative(this.cwd, file) || file;
    return isInside(file, this.where.home) ? `~/${relative(this.where.home, file)}` : file;
  }
}

/**
 * The `@path` imports in Markdown text: a word that starts with `@`, outside fenced code blocks
 * and inline code spans (which show `@decorators` and `npm i @scope/pkg`), with the punctuation
 * that ends a sentence taken off.
 */
export function importsIn(text: string): string[] {
  const prose = text
    .replace(/^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:\n {0,3}\1[^\n]*|$(?![\s\S]))/gm, "")
    .replace(/(`+)[\s\S]*?\1/g, "");
  return mentionsIn(prose);
}

/** `cwd` and its parents up to the enclosing git repository's root, outermost first (just `cwd` outside one). */
export function foldersFromRoot(cwd: string): string[] {
  const chain: string[] = [];
  for (let folder = cwd; ; folder = dirname(folder)) {
    chain.push(folder);
    if (existsSync(join(folder, ".git"))) return chain.reverse();
    if (dirname(folder) === folder) return [cwd];
  }
}

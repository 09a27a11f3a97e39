import { spawn } from "node:child_process";
import { readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { z } from "zod";
import { defineTool, type ToolContext } from "../core/tool.ts";
import { hasGlob } from "../shared/path-glob.ts";
import { findSystemProgram } from "../shared/system-program.ts";
import { globToPathRegExp } from "./glob-pattern.ts";
import { MAX_OUTPUT_BYTES } from "./output-limit.ts";
import { displayPath, isBinaryFile, pathError, resolvePath } from "./paths.ts";
import { isOffLimits, walk } from "./walk.ts";

/** Most matching lines one call shows. */
const MAX_MATCHES = 200;
/** Matches past the shown ones are counted up to this many, then the search stops. */
const MAX_COUNTED_MATCHES = 100_000;
/** Most context lines around each match. */
const MAX_CONTEXT = 10;
/** Shown lines are cut to this many characters (minified files). */
const MAX_LINE_CHARS = 500;
/**
 * Longest one ripgrep search may take, unless HARNESS_GREP_TIMEOUT (seconds) says otherwise: rg
 * reads every ignore file on its walk and waits for good on one that is a FIFO (red team, issue
 * 51), so a search is bounded and ends with what it found and a line saying why it stopped.
 */
const RIPGREP_TIME_LIMIT_MS = 120_000;

function ripgrepTimeLimitMs(): number {
  const seconds = Number(process.env.HARNESS_GREP_TIMEOUT);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : RIPGREP_TIME_LIMIT_MS;
}

/** The built-in search skips bigger files (ripgrep searches them). */
const MAX_FALLBACK_FILE_BYTES = 10 * 1024 * 1024;

type Search = {
  root: string;
  regexSource: string;
  ignoreCase: boolean;
  glob?: string;
  context: number;
  cwd: string;
  signal: AbortSignal;
  /** Where the search does not go (ToolContext.unwalked). */
  unwalked: string[];
  /** The environment ripgrep runs with: the commands' one, credentials removed (ToolContext.env). */
  env?: Record<string, string | undefined>;
  /** Whether a file found is another name (a hard link) for one the rules keep file tools out of: its lines are not shown. */
  isOtherNameRefused(file: string): Promise<boolean>;
};

/** Search.isOtherNameRefused from the call's check at use, asked once per file with more than one name. */
function otherNameCheck(checkAtUse: ToolContext["checkAtUse"]): Search["isOtherNameRefused"] {
  const judged = new Map<string, Promise<boolean>>();
  return (file) => {
    let refused = judged.get(file);
    if (refused === undefined) {
      refused = stat(file).then(
        async (stats) => stats.nlink > 1 && Boolean(await checkAtUse?.(file, "read", stats)),
        () => false,
      );
      judged.set(file, refused);
    }
    return refused;
  };
}

/**
 * Regex search over files. Uses ripgrep when `rg` is on process.env.PATH (looked up on every
 * call, so a changed PATH takes effect) and a built-in search otherwise; both feed the same
 * collector, so the output is identical: `path:line:text` for matches, `path-line-text` for
 * context, `--` between groups, paths relative to cwd, files in path order.
 */
export const grep = defineTool({
  name: "grep",
  description:
    "Search file contents by regex. Prints path:line:text. Skips .git, node_modules, gitignored and binary files.",
  kind: "read",
  input: z.object({
    pattern: z.string().describe("Regex"),
    path: z.string().optional().describe("File or folder (default: .)"),
    glob: z.string().optional().describe("File filter, e.g. *.ts"),
    context: z.number().int().min(0).max(MAX_CONTEXT).optional().describe("Lines around each match"),
    ignore_case: z.boolean().optional(),
  }),
  describe: (input) => `grep ${input.pattern}${input.path ? ` in ${input.path}` : ""}`,
  effects: (input, cwd) => ({ reads: [resolvePath(cwd, input.path ?? ".")] }),
  async run(input, { cwd, signal, unwalked = [], env, checkAtUse }) {
    const root = resolvePath(cwd, input.path ?? ".");
    const wrongPath = await pathError(cwd, root);
    if (wrongPath) return wrongPath;
    const search: Search = {
      root,
      regexSource: input.pattern,
      ignoreCase: input.ignore_case ?? false,
      glob: input.glob,
      context: input.context ?? 0,
      cwd,
      signal,
      unwalked,
      env,
      isOtherNameRefused: otherNameCheck(checkAtUse),
    };
    const collector = new MatchCollector(search.context);
    const ripgrep = findSystemProgram("rg");
    const failure = ripgrep
      ? await searchWithRipgrep(ripgrep, search, collector)
      : await searchBuiltIn(search, collector);
    if (failure) return { isError: true, content: `Error: ${failure}` };
    return collector.format(`No matches for ${input.pattern} in ${displayPath(cwd, root)}`);
  },
});

/**
 * Gathers lines file by file, in path order, as either search reports them; keeps the first
 * MAX_MATCHES matches (and the context after the last one) and counts the rest.
 */
class MatchCollector {
  private readonly lines: { file: string; number: number; text: string; isMatch: boolean }[] = [];
  /** Matching lines seen so far, shown or not. */
  matchCount = 0;
  private lastKept: { file: string; number: number } | undefined;

  constructor(private readonly context: number) {}

  get isFull(): boolean {
    return this.matchCount >= MAX_COUNTED_MATCHES;
  }

  add(file: string, number: number, text: string, isMatch: boolean): void {
    if (isMatch) this.matchCount++;
    const isWithinLimit = isMatch
      ? this.matchCount <= MAX_MATCHES
      : this.matchCount < MAX_MATCHES || this.isTrailingContext(file, number);
    if (!isWithinLimit) return;
    const cut =
      text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}... [line cut: ${text.length} chars]` : text;
    this.lines.push({ file, number, text: cut, isMatch });
    if (isMatch) this.lastKept = { file, number };
  }

  format(noMatches: string): { content: string; summary: string } {
    if (this.matchCount === 0) return { content: noMatches, summary: "0 matches" };
    const out: string[] = [];
    let bytes = 0;
    let shownMatches = 0;
    let isCut = false;
    for (const [index, line] of this.lines.entries()) {
      const previous = this.lines[index - 1];
      const startsGroup = previous && (previous.file !== line.file || previous.number + 1 !== line.number);
      const text = `${startsGroup && this.context > 0 ? "--\n" : ""}${line.file}${line.isMatch ? ":" : "-"}${line.number}${line.isMatch ? ":" : "-"}${line.text}`;
      bytes += Buffer.byteLength(text) + 1;
      if (bytes > MAX_OUTPUT_BYTES) {
        isCut = true;
        break;
      }
      out.push(text);
      if (line.isMatch) shownMatches++;
    }
    if (isCut || shownMatches < this.matchCount) {
      const total = this.isFull ? `more than ${MAX_COUNTED_MATCHES}` : `${this.matchCount}`;
      out.push(`[showing ${shownMatches} of ${total} matching lines; narrow the pattern, path or glob]`);
    }
    return { content: out.join("\n"), summary: this.matchCount === 1 ? "1 match" : `${this.matchCount} matches` };
  }

  private isTrailingContext(file: string, number: number): boolean {
    const last = this.lastKept;
    return (
      this.matchCount === MAX_MATCHES &&
      last !== undefined &&
      last.file === file &&
      number <= last.number + this.context
    );
  }
}

/** Runs rg with JSON output; returns an error message, or undefined when the search ran. */
async function searchWithRipgrep(
  ripgrep: string,
  search: Search,
  collector: MatchCollector,
): Promise<string | undefined> {
  const args = [
    "--json",
    "--no-config",
    "--hidden",
    "--no-require-git",
    "--sort",
    "path",
    "--glob",
    "!.git",
    "--glob",
    "!node_modules",
  ];
  if (search.ignoreCase) args.push("--ignore-case");
  if (search.context > 0) args.push("--context", String(search.context));
  if (search.glob) args.push("--glob", search.glob);
  // The search is given its real root, so globs naming the unwalked paths keep it out of them.
  // rg matches a glob against the path relative to its cwd when the path is under it (a leading
  // `/` anchors there), else against the whole path (hence `**` and the absolute path): an
  // absolute glob for a path under the cwd matches nothing, so a denied `.env` there was searched.
  const root = await realpath(search.root).catch(() => search.root);
  const cwd = await realpath(search.cwd).catch(() => search.cwd);
  const isBelow = (file: string, folder: string) =>
    file.startsWith(folder.endsWith(path.sep) ? folder : `${folder}${path.sep}`);
  // A glob (a deny rule's `**/.env`) is not handed to rg, whose globs mean other things: its
  // matches are dropped below instead, so what read_file may not read is not shown either.
  const globs = search.unwalked.filter(hasGlob);
  for (const folder of search.unwalked.filter((entry) => !hasGlob(entry)))
    if (isBelow(folder, root))
      args.push("--glob", isBelow(folder, cwd) ? `!/${path.relative(cwd, folder)}` : `!**${folder}`);
  args.push("--regexp", search.regexSource, "--", root);

  const limitMs = ripgrepTimeLimitMs();
  const overTime = AbortSignal.timeout(limitMs);
  // AbortSignal.any is Node 20.3+; the floor is 20.0.
  const either = new AbortController();
  for (const source of [search.signal, overTime])
    if (source.aborted) either.abort();
    else source.addEventListener("abort", () => either.abort(), { once: true });
  const child = spawn(ripgrep, args, {
    cwd: search.cwd,
    env: search.env ?? process.env,
    signal: either.signal,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    if (stderr.length < MAX_OUTPUT_BYTES) stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on("close", (code) => resolve(code));
    child.on("error", () => resolve(null));
  });
  for await (const line of createInterface({ input: child.stdout })) {
    const event = JSON.parse(line) as RipgrepEvent;
    if (event.type !== "match" && event.type !== "context") continue;
    const found = path.resolve(search.cwd, decode(event.data.path));
    if (globs.some((glob) => isOffLimits(found, glob) && !isOffLimits(root, glob))) continue;
    if (await search.isOtherNameRefused(found)) continue;
    const file = displayPath(search.cwd, found);
    const text = decode(event.data.lines).replace(/\r?\n$/, "");
    collector.add(file, event.data.line_number, text, event.type === "match");
    if (collector.isFull) {
      child.kill();
      break;
    }
  }
  const code = await exited;
  if (search.signal.aborted || collector.isFull) return undefined;
  if (overTime.aborted)
    return `ripgrep stopped after ${limitMs / 1000} s (${collector.matchCount} matches by then): a file on its walk may never end, such as a FIFO named .gitignore; search a narrower path`;
  if (code === 2 && collector.matchCount === 0) return `ripgrep failed: ${stderr.trim()}`;
  if (code === null) return `could not run ripgrep (${ripgrep}): ${stderr.trim()}`;
  return undefined;
}

type RipgrepText = { text?: string; bytes?: string };
type RipgrepEvent = { type: string; data: { path: RipgrepText; lines: RipgrepText; line_number: number } };

function decode(value: RipgrepText): string {
  return value.text ?? Buffer.from(value.bytes ?? "", "base64").toString("utf8");
}

/** The search without ripgrep: walks like list_files, in the order rg --sort path uses. */
async function searchBuiltIn(search: Search, collector: MatchCollector): Promise<string | undefined> {
  let regex: RegExp;
  try {
    regex = new RegExp(search.regexSource, search.ignoreCase ? "i" : "");
  } catch (error) {
    return `invalid regex: ${(error as Error).message}`;
  }
  const include = search.glob && !search.glob.startsWith("!") ? globToPathRegExp(search.glob) : undefined;
  const exclude = search.glob?.startsWith("!") ? globToPathRegExp(search.glob.slice(1)) : undefined;
  const files: string[] = [];
  if ((await stat(search.root)).isDirectory()) {
    for await (const entry of walk(search.root, search.cwd, search.signal, Infinity, search.unwalked)) {
      if (entry.type !== "file") continue;
      const shown = displayPath(search.cwd, entry.absolute).replace(/^\//, "");
      if ((include && !include.test(shown)) || exclude?.test(shown)) continue;
      files.push(entry.absolute);
    }
    files.sort(comparePaths);
  } else {
    files.push(search.root);
  }
  for (const file of files) {
    if (search.signal.aborted || collector.isFull) break;
    if (await search.isOtherNameRefused(file)) continue;
    await searchFile(file, regex, search, collector);
  }
  return undefined;
}

async function searchFile(file: string, regex: RegExp, search: Search, collector: MatchCollector): Promise<void> {
  const stats = await stat(file);
  if (!stats.isFile()) return; // a FIFO, socket or device is never opened (a FIFO would wait for a writer)
  if (stats.size > MAX_FALLBACK_FILE_BYTES || (await isBinaryFile(file))) return;
  const lines = (await readFile(file, "utf8")).split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const matching = lines.map((line) => regex.test(line));
  const shown = displayPath(search.cwd, file);
  let lastEmitted = -1;
  for (const [index, isMatch] of matching.entries()) {
    if (!isMatch) continue;
    const from = Math.max(lastEmitted + 1, index - search.context);
    const to = Math.min(lines.length - 1, index + search.context);
    for (let i = from; i <= to; i++) {
      if (i > index && matching[i]) break;
      collector.add(shown, i + 1, lines[i].replace(/\r$/, ""), matching[i]);
      lastEmitted = i;
    }
  }
}

/** Orders paths as a depth-first walk with names sorted in each folder does (`a/x` before `a.ts`). */
function comparePaths(a: string, b: string): number {
  const left = a.split(path.sep);
  const right = b.split(path.sep);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    if (left[i] !== right[i]) return left[i] < right[i] ? -1 : 1;
  }
  return left.length - right.length;
}

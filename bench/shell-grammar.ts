// The splitter (src/permissions/shell-split.ts) against a real bash grammar, tree-sitter-bash
// through web-tree-sitter, and mvdan/sh as WASM (`sh-syntax`), on every spelling of
// test/support/shell-spellings.ts (issue 51's decision). Neither grammar is a dependency: unpack them with
// `npm pack web-tree-sitter@0.25.10 tree-sitter-bash@0.25.1 sh-syntax@0.7.0` into a folder, one
// folder each (`tar xzf x.tgz -C x`), and run
//   node --import tsx bench/shell-grammar.ts <that folder>
// For each line it prints what a `Bash(git push:*)` and `Bash(rm:*)` deny rule decides when the
// line is read by the splitter and when it is read by tree-sitter-bash (its commands turned into
// the splitter's shape and judged by the same views: command-views.ts), and whether sh-syntax
// parses it; then load and parse times.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { lineViews } from "../src/permissions/command-views.ts";
import { commandMatches, commandMayMatch } from "../src/permissions/rules.ts";
import { type SimpleCommand, type SplitCommand, splitCommand, UNKNOWN } from "../src/permissions/shell-split.ts";
import { decodeAnsiC } from "../src/permissions/shell-words.ts";
import { GIT_PUSH_SPELLINGS, ORDINARY, RM_SPELLINGS } from "../test/support/shell-spellings.ts";

const folder = process.argv[2];
if (!folder) throw new Error("usage: node --import tsx bench/shell-grammar.ts <folder with the unpacked packages>");
const packageDir = (name: string) => {
  const found = readdirSync(folder).find((entry) => entry.startsWith(`${name}-`));
  if (!found) throw new Error(`no ${name}-<version> folder in ${folder}`);
  return join(folder, found, "package");
};

// biome-ignore lint/suspicious/noExplicitAny: the grammar's own types are not installed
type Node = any;

const RULES = ["git push:*", "rm:*"];

/** What a deny rule on git push or rm decides about a line read as `split`: the rule's word, `hidden`, or `runs`. */
function verdict(split: SplitCommand): string {
  const views = lineViews(split);
  for (const view of views) if (RULES.some((rule) => commandMatches(rule, view.words))) return "written";
  for (const view of views)
    if (view.why !== undefined && RULES.some((rule) => commandMayMatch(rule, view.words))) return "hidden";
  return "runs";
}

/** A tree-sitter word as the splitter would give it: its text, and where bash computes the rest. */
function wordOf(node: Node): { text: string; openAt?: number } {
  switch (node.type) {
    case "word":
    case "number":
    case "command_name": {
      if (node.type === "command_name") return wordOf(node.namedChild(0));
      const text = node.text.replace(/\\(.)/gs, "$1");
      const glob = /[*?]|\[.*\]/.exec(node.text);
      return glob ? { text, openAt: glob.index } : { text };
    }
    case "raw_string":
      return { text: node.text.slice(1, -1) };
    case "ansi_c_string":
      return { text: decodeAnsiC(node.text, 2)?.value ?? node.text };
    case "string": {
      const open = node.namedChildren.some((child: Node) => child.type !== "string_content");
      const text = node.text.slice(1, -1).replace(/\\([$`"\\\n])/g, "$1");
      return open ? { text, openAt: 0 } : { text };
    }
    case "concatenation": {
      let text = "";
      let openAt: number | undefined;
      for (const child of node.namedChildren) {
        const part = wordOf(child);
        if (part.openAt !== undefined) openAt ??= text.length + part.openAt;
        text += part.text;
      }
      return { text, openAt };
    }
    default:
      // Expansions, substitutions, arithmetic, brace sequences: computed when the line runs.
      return { text: node.text, openAt: 0 };
  }
}

/** Every `command` node of a tree as the splitter's SimpleCommand (words and open words). */
function commandsOf(root: Node): SimpleCommand[] {
  const commands: SimpleCommand[] = [];
  const visit = (node: Node) => {
    if (node.type === "command") {
      const words = node.namedChildren
        .filter((child: Node) => !["file_redirect", "herestring_redirect", "heredoc_redirect"].includes(child.type))
        .map((child: Node) => (child.type === "variable_assignment" ? { text: child.text } : wordOf(child)));
      const command: SimpleCommand = { words: words.map((word: { text: string }) => word.text), writesFile: false };
      if (words.some((word: { openAt?: number }) => word.openAt !== undefined))
        command.openWords = words.map((word: { text: string; openAt?: number }) =>
          word.openAt === undefined ? word.text : word.text.slice(0, word.openAt) + UNKNOWN,
        );
      commands.push(command);
    }
    for (const child of node.namedChildren) visit(child);
  };
  visit(root);
  return commands;
}

async function main() {
  let started = performance.now();
  const treeSitter = await import(pathToFileURL(join(packageDir("web-tree-sitter"), "tree-sitter.js")).href);
  await treeSitter.Parser.init();
  const bash = await treeSitter.Language.load(join(packageDir("tree-sitter-bash"), "tree-sitter-bash.wasm"));
  const parser = new treeSitter.Parser();
  parser.setLanguage(bash);
  const treeSitterLoad = performance.now() - started;
  started = performance.now();
  const shSyntax = await import(pathToFileURL(join(packageDir("sh-syntax"), "lib", "index.js")).href);
  await shSyntax.parse("true");
  const shSyntaxLoad = performance.now() - started;

  const cases = [
    ...GIT_PUSH_SPELLINGS.map(([line, hiding]) => ({ line, expected: hiding === "written" ? "written" : "hidden" })),
    ...RM_SPELLINGS.map(([line, hiding]) => ({ line, expected: hiding === "written" ? "written" : "hidden" })),
    ...ORDINARY.map((line) => ({ line, expected: "runs" })),
  ].map(({ line, expected }) => ({ line: line.replaceAll("{home}", "/h"), expected }));
  const times = { splitter: 0, treeSitter: 0, shSyntax: 0 };
  const tally = {
    splitter: 0,
    treeSitter: 0,
    shSyntax: 0,
    grammarMissed: [] as string[],
    splitterMissed: [] as string[],
  };
  for (const { line, expected } of cases) {
    let at = performance.now();
    const bySplitter = verdict(splitCommand(line));
    times.splitter += performance.now() - at;
    at = performance.now();
    const tree = parser.parse(line);
    const byGrammar = verdict({ commands: commandsOf(tree.rootNode), parsed: !tree.rootNode.hasError });
    times.treeSitter += performance.now() - at;
    at = performance.now();
    const shParses = await shSyntax.parse(line, { keepComments: false }).then(
      () => true,
      () => false,
    );
    times.shSyntax += performance.now() - at;
    const safe = (got: string) => (expected === "runs" ? got === "runs" : got !== "runs");
    if (safe(bySplitter)) tally.splitter++;
    else tally.splitterMissed.push(line);
    if (safe(byGrammar)) tally.treeSitter++;
    else tally.grammarMissed.push(line);
    if (shParses) tally.shSyntax++;
    console.log(
      `${expected.padEnd(8)} splitter:${bySplitter.padEnd(8)} tree-sitter:${byGrammar.padEnd(8)} sh-syntax:${shParses ? "parses" : "error "} ${JSON.stringify(line)}`,
    );
  }
  console.log(`\n${cases.length} lines (guarded ones must not run, ordinary ones must)`);
  console.log(`splitter: right on ${tally.splitter}; wrong on ${JSON.stringify(tally.splitterMissed)}`);
  console.log(`tree-sitter-bash: right on ${tally.treeSitter}; wrong on ${JSON.stringify(tally.grammarMissed)}`);
  console.log(`sh-syntax parses ${tally.shSyntax} of ${cases.length}`);
  console.log(
    `load: tree-sitter ${treeSitterLoad.toFixed(0)} ms, sh-syntax ${shSyntaxLoad.toFixed(0)} ms; all lines: splitter ${times.splitter.toFixed(1)} ms, tree-sitter ${times.treeSitter.toFixed(1)} ms, sh-syntax ${times.shSyntax.toFixed(1)} ms`,
  );
}

await main();

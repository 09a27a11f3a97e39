// `harness help [topic]`: the manual's pages (docs/, shipped in the package) at the terminal, so
// a user finds the page for a topic without a browser or the repository.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { closestName } from "../../shared/edit-distance.ts";
import { packageFolder } from "../../shared/package-folder.ts";

/** Words people look for that name another page. */
const ALIASES: Record<string, string> = {
  sandbox: "permissions",
  trust: "permissions",
  rules: "permissions",
  mcp: "mcp-acp",
  acp: "mcp-acp",
  editors: "mcp-acp",
  config: "configuration",
  proxy: "configuration",
  limits: "configuration",
  models: "providers",
  thinking: "providers",
  local: "providers",
  undo: "sessions",
  compaction: "sessions",
  skills: "prompts",
  commands: "prompts",
  agents: "prompts",
  subagents: "prompts",
  claude: "claude-code",
  output: "usage",
  images: "usage",
  json: "events",
  worker: "batch",
  queue: "batch",
  tests: "testing",
  bench: "performance",
};

function topics(docs: string): string[] {
  return readdirSync(docs)
    .filter((name) => name.endsWith(".md"))
    .map((name) => name.slice(0, -".md".length))
    .sort();
}

export async function run(argv: string[]): Promise<number> {
  const docs = join(packageFolder(), "docs");
  const pages = topics(docs);
  const aliases = Object.keys(ALIASES).filter((alias) => pages.includes(ALIASES[alias]));
  const [word] = argv;
  if (word === undefined || word === "--help" || word === "-h") {
    process.stdout.write(
      `Usage: harness help <topic>   a page of the manual (docs/<topic>.md)\n\nTopics: ${pages.join(", ")}\n` +
        `${aliases.length > 0 ? `Also: ${aliases.sort().join(", ")}\n` : ""}Every flag: harness --help\n`,
    );
    return 0;
  }
  const wanted = word.toLowerCase();
  const page = pages.includes(wanted) ? wanted : aliases.includes(wanted) ? ALIASES[wanted] : undefined;
  if (page === undefined) {
    const meant = closestName(wanted, [...pages, ...aliases], 2);
    process.stderr.write(
      `harness: no help topic "${word}"${meant ? `; did you mean harness help ${meant}?` : ""} (topics: ${pages.join(", ")})\n`,
    );
    return 2;
  }
  process.stdout.write(readFileSync(join(docs, `${page}.md`), "utf8"));
  return 0;
}

// The command line: argv, configuration and wiring. No logic of its own lives here.
import { parseArgs } from "node:util";
import { VERSION } from "./version.ts";

const HELP = `harness ${VERSION}: a coding agent in your terminal

Usage:
  harness [options] [prompt words...]   one-shot when a prompt is given, chat otherwise
  echo "task" | harness [options]       the whole of stdin is the prompt

Options:
  -p, --print <prompt>     run one prompt to completion, print the answer, exit
  --provider <name>        openai, anthropic, openrouter, ollama
  --model <name>           model id as the provider spells it
  --base-url <url>         any OpenAI-compatible (.../v1) or Anthropic-compatible endpoint
  --max-turns <n>          most model calls in one run (default 100)
  -y, --yes                approve every tool call without asking
  --output <format>        text (default), json, stream-json
  -c, --continue           continue the latest session in this directory
  -r, --resume <id>        continue that session
  -h, --help               this help
  --version                print the version

Environment:
  OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENROUTER_API_KEY, HARNESS_API_KEY (wins),
  HARNESS_PROVIDER, HARNESS_MODEL, HARNESS_BASE_URL, HARNESS_HOME (default ~/.harness), NO_COLOR

Exit codes: 0 done, 1 failed, 2 usage error, 3 max turns reached, 130 interrupted.
`;

const OPTIONS = {
  print: { type: "string", short: "p" },
  provider: { type: "string" },
  model: { type: "string" },
  "base-url": { type: "string" },
  "max-turns": { type: "string" },
  yes: { type: "boolean", short: "y" },
  output: { type: "string" },
  continue: { type: "boolean", short: "c" },
  resume: { type: "string", short: "r" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} as const;

/** The parsed command line. */
export type CliFlags = ReturnType<typeof parseFlags>;

function parseFlags(argv: string[]) {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  return { ...values, positionals };
}

/** Bad flags: print the reason and exit 2. */
class UsageError extends Error {}

/**
 * Subcommands (`harness sessions`, ...): each module exports `run(argv: string[]): Promise<number>`
 * and is loaded only when named. A prompt that starts with one of these words needs `-p`.
 */
const SUBCOMMANDS: Record<string, () => Promise<{ run(argv: string[]): Promise<number> }>> = {};

async function main(argv: string[]): Promise<number> {
  const subcommand = SUBCOMMANDS[argv[0] ?? ""];
  if (subcommand) return (await subcommand()).run(argv.slice(1));
  let flags: CliFlags;
  try {
    flags = parseFlags(argv);
    validate(flags);
  } catch (error) {
    process.stderr.write(`harness: ${(error as Error).message}\nTry 'harness --help'.\n`);
    return 2;
  }
  if (flags.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (flags.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const { runCli } = await import("./run-cli.ts");
  return runCli(flags);
}

function validate(flags: CliFlags): void {
  if (flags["max-turns"] !== undefined && !/^[1-9]\d*$/.test(flags["max-turns"])) throw new UsageError("--max-turns takes a positive whole number");
  if (flags.output !== undefined && !["text", "json", "stream-json"].includes(flags.output)) throw new UsageError("--output takes text, json or stream-json");
}

/** Exits once stdout has flushed: open sockets or timers must not keep a finished run alive. */
function exit(code: number): void {
  process.stdout.write("", () => process.exit(code));
}

main(process.argv.slice(2)).then(exit, (error: unknown) => {
  process.stderr.write(`harness: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  exit(1);
});

// The command line: argv, configuration and wiring. No logic of its own lives here.
import { showControlChars } from "../shared/control-chars.ts";
import { VERSION } from "../shared/version.ts";
import type { SubcommandName } from "./subcommand-names.ts";

/** Help text for the option column: words wrapped at 100 columns, continued under the column. */
function helpColumn(text: string): string {
  const lines = [""];
  for (const word of text.split(" ")) {
    if (lines[lines.length - 1].length + word.length + 1 > 100 - 27) lines.push("");
    lines[lines.length - 1] += `${lines[lines.length - 1] ? " " : ""}${word}`;
  }
  return lines.join(`\n${" ".repeat(27)}`);
}

/**
 * The help text, with the wire APIs and their key variables from their records. Built when asked
 * for: the records load the APIs' request code, which `--version` has no use for.
 */
async function helpText(): Promise<string> {
  const { describeWireApis, WIRE_API_NAMES, WIRE_APIS } = await import("../providers/wire-apis.ts");
  const { PRESETS } = await import("../wiring/defaults.ts");
  /** The providers by name, from their presets; `local` is told apart: it needs no server and no key. */
  const providers = Object.keys(PRESETS).map((name) =>
    name === "local" ? "local (a model run in-process, no key)" : name,
  );
  /** The key variables, each once, in the order of the wire APIs that read them. */
  const keyVariables = [...new Set(WIRE_API_NAMES.map((name) => WIRE_APIS[name].keyEnv))];
  return `harness ${VERSION}: a coding agent in your terminal

Usage:
  harness [options] [prompt words...]   one-shot when a prompt is given, chat otherwise
  echo "task" | harness [options]       the whole of stdin is the prompt
  harness models [--provider, --base-url]   list the models the endpoint offers
  harness mcp list                      the configured MCP servers and their tools
  harness sessions [--all]              recent sessions: id, time, directory, turns, first prompt
  harness export [id] [--html|--md] [-o file]   a session as a self-contained web page or Markdown
  harness undo [--session id] [--turns n]   put the files and the conversation back to before the
                                        last turn (or n turns) of this directory's latest session
  harness acp                           serve the Agent Client Protocol on stdio (for editors such as Zed)
  harness serve [--port n]              hold sessions and serve them over HTTP: API, events, a web page
  harness attach [session]              watch and steer a session harness serve holds, from this terminal
  harness batch tasks.jsonl [--concurrency n] [--out results.jsonl] [--queue redis://host:port/name]
                                        many tasks, each in its own working copy (harness batch --help)
  harness batch report a.jsonl [b.jsonl ...] [--html report.html]   runs side by side: success, cost, time
  harness worktrees [merge|keep|discard <name>]   session worktrees (harness -w): state, merge, remove
  harness worker --queue redis://host:port/name   run queued batch tasks on this machine
  harness help [topic]                  a page of the manual (permissions, hooks, providers, ...)
  harness completion <bash|zsh|fish>    a completion script for your shell
  harness doctor                        check what harness needs: Node, config, key, proxy, sandbox, MCP
  harness login chatgpt|copilot [--device]   sign in with your ChatGPT or Copilot plan (no API key)
  harness logout [name]                 forget a sign-in;  harness auth: who is signed in, until when

Options:
  -p, --print <prompt>     run one prompt to completion, print the answer, exit
  --provider <name>        ${helpColumn(providers.join(", "))}
  --model <name>           model id as the provider spells it
  --base-url <url>         any OpenAI-compatible (.../v1) or Anthropic-compatible endpoint
  --api <wire>             ${helpColumn(`the wire API instead of the provider's own: ${describeWireApis()}`)}
  --max-turns <n>          most model calls in one run (default 100)
  --fallback-model <[provider:]model,...>   models to go on with when a call fails for overload,
                           rate limit, used-up quota or an outage (docs/providers.md#fallback-models)
  --max-tokens <n>         output limit of one model reply
  --context-window <n>     the model's context window in tokens (compaction starts at 80%)
  --thinking <level>       off, low, medium, high, or a token budget: how much the model thinks,
                           mapped onto each API (a level an API cannot take is left out, with a notice)
  --request-timeout <s>    most seconds one model call may take (default 600)
  --idle-timeout <s>       most seconds the model's server may stay silent during a call (default 120)
  -y, --yes                approve every tool call without asking (same as --approve all)
  --approve <mode>         ask (default: reads run, edits and commands ask), edits (edits in the
                           workspace run too), plan (nothing changes: commands run in a read-only
                           sandbox, edits are refused), all; rules in .harness/settings.json
                           (docs/permissions.md)
  --sandbox <on|off>       commands run in a sandbox (bubblewrap) where it works; on: require it
  --allow-network          let sandboxed commands use the network
  --trust                  use this folder's project settings that run code or widen permissions
                           (.harness/settings.json hooks and allow rules, .mcp.json servers) in this
                           run; without it they need a trust you gave in chat or in your settings
  --allow-home             work in a folder that holds your home folder (~, /home, /) or lies in a
                           hidden folder of it (~/.dotfiles); without it a chat asks and a headless
                           run stops (exit 2). Dotfiles stay read-only; credential folders and
                           $HARNESS_HOME are never a workspace
  --system-prompt <text|@file>   replace harness's own system prompt (AGENTS.md and the
                           working directory stay); @file reads a file
  --append-system-prompt <text|@file>   add to the end of the system prompt
  --debug                  log requests, hooks, tool calls and settings read to stderr (keys redacted)
  --debug-file <path>      the same log, appended to a file only you can read
  --json-schema <schema|@file>   the answer as JSON valid against this JSON Schema (its top level an
                           object), printed on stdout; also --output-schema, as Codex spells it
                           (docs/structured-output.md)
  --image <file>           attach an image (PNG, JPEG, GIF, WebP) to the prompt; repeatable.
                           @shot.png in a prompt attaches one too
  --cwd <dir>              work in that directory, as if harness were started there
  --output <format>        text (default), json, stream-json (events: docs/events.md);
                           also --output-format, as Claude Code spells it
  --format claude          json and stream-json in Claude Code's message shapes (system init,
                           assistant, user tool results, result) instead of harness's events
  --input stream-json      read user messages as JSON lines from stdin, one run each (needs --output stream-json);
                           also --input-format, as Claude Code spells it
  -c, --continue           continue the latest session in this directory
  -r, --resume [id]        continue that session (without an id: pick one of this folder's recent ones)
  --fork                   with -c or -r: continue a copy of the session under a new id (the
                           original stays as it is, and may be in use by another run)
  -w, --worktree [name]    work in a new git worktree on branch harness/<name> (beside the repository,
                           in <repo>.worktrees/; named like the session without a name): docs/worktrees.md
  --attempts <n>           with a prompt: n attempts at once, each in its own worktree (with --yes),
                           compared side by side (test, diff, tokens, cost, time)
  --test <command>         with --attempts: run this in each attempt's worktree (sandboxed) when it ends
  --pick best              with --attempts: merge the passing attempt with the smallest change
  -h, --help               this help
  --version                print the version

Environment:
  ${[...keyVariables, "OPENROUTER_API_KEY"].join(", ")}, HARNESS_API_KEY (wins),
  HARNESS_PROVIDER, HARNESS_MODEL, HARNESS_BASE_URL, HARNESS_HOME (default ~/.harness), NO_COLOR, FORCE_COLOR,
  ANTHROPIC_BASE_URL, ANTHROPIC_AUTH_TOKEN, OPENAI_BASE_URL, OLLAMA_HOST, GOOGLE_GEMINI_BASE_URL,
  GOOGLE_API_KEY (as the vendors' own tools read them; harness's own settings win),
  HARNESS_CONTEXT_WINDOW (as --context-window), HARNESS_REQUEST_TIMEOUT, HARNESS_IDLE_TIMEOUT
  (as the flags), HARNESS_MAX_REPLY_BYTES (most bytes of one reply, default 16000000),
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY (lower case too; every request harness makes), NODE_EXTRA_CA_CERTS
  Defaults and custom providers: $HARNESS_HOME/config.json (docs/configuration.md); flags and variables win.

Exit codes: 0 done, 1 failed, 2 usage error, 3 max turns reached, 130 interrupted.
`;
}

/**
 * Subcommands (`harness sessions`, ...): each module exports `run(argv: string[]): Promise<number>`
 * and is loaded only when named. A prompt that starts with one of these words needs `-p`.
 */
const SUBCOMMANDS: Record<SubcommandName, () => Promise<{ run(argv: string[]): Promise<number> }>> = {
  models: () => import("./commands/models.ts"),
  mcp: () => import("./commands/mcp.ts"),
  acp: () => import("./commands/acp.ts"),
  serve: () => import("./commands/serve.ts"),
  attach: () => import("./commands/attach.ts"),
  sessions: () => import("./commands/sessions.ts"),
  export: () => import("./commands/export.ts"),
  undo: () => import("./commands/undo.ts"),
  batch: () => import("./commands/batch.ts"),
  worktrees: () => import("./commands/worktrees.ts"),
  worker: () => import("./commands/worker.ts"),
  help: () => import("./commands/help.ts"),
  completion: () => import("./commands/completion.ts"),
  doctor: () => import("./commands/doctor.ts"),
  login: () => import("./commands/login.ts"),
  logout: () => import("./commands/logout.ts"),
  auth: () => import("./commands/auth.ts"),
};

async function main(argv: string[]): Promise<number> {
  // Alone, --help and --version answer before the flag schema (and zod) is even loaded.
  if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "-h")) return help();
  if (argv.length === 1 && argv[0] === "--version") return version();
  if (!isCurrentFolderThere()) {
    process.stderr.write(
      "error: the current folder no longer exists (it was deleted or moved); cd to a folder that exists and run harness again\n",
    );
    return 1;
  }
  const subcommand = Object.hasOwn(SUBCOMMANDS, argv[0] ?? "") ? SUBCOMMANDS[argv[0] as SubcommandName] : undefined;
  if (subcommand) {
    await Promise.all([useCompileCache(), useLeanHeap()]);
    return (await subcommand()).run(argv.slice(1));
  }
  await Promise.all([useCompileCache(), useLeanHeap()]);
  const { mistypedSubcommand, parseRunFlags, UsageError } = await import("./cli-args.ts");
  const typo = mistypedSubcommand(argv, Object.keys(SUBCOMMANDS));
  if (typo) {
    process.stderr.write(`harness: ${showControlChars(typo)}\n`);
    return 2;
  }
  let flags;
  try {
    flags = parseRunFlags(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`harness: ${showControlChars(error.message)}\nTry 'harness --help'.\n`);
    return 2;
  }
  if (flags.help) return help();
  if (flags.version) return version();
  // The sandbox trial (a bwrap run) goes on while the rest of the harness loads.
  if (flags.sandbox !== "off") void import("../sandbox/detect-sandbox.ts").then(({ probeSandbox }) => probeSandbox());
  const { runCli } = await import("./run-cli.ts");
  return runCli(flags);
}

/**
 * Node 22.1 and later keep V8's compiled code of the modules loaded after this on disk, so a later
 * start compiles little (compiling our chunks is most of start-up after Node's own). The folder is
 * $HARNESS_HOME/compile-cache, the user's own, rather than Node's default in the shared /tmp where
 * another user could plant entries. Node 20, our floor, has no such cache and skips this.
 */
async function useCompileCache(): Promise<void> {
  const { enableCompileCache } = (await import("node:module")) as { enableCompileCache?: (dir: string) => unknown };
  if (!enableCompileCache) return;
  const [{ join }, { stateDir }, { makePrivateFolder }] = await Promise.all([
    import("node:path"),
    import("../wiring/defaults.ts"),
    import("../shared/private-files.ts"),
  ]);
  const cache = join(stateDir(process.env), "compile-cache");
  // Node makes a missing cache folder (and $HARNESS_HOME above it) with mkdir's default mode, which
  // under `umask 000` is writable by everyone; made here first, they are private.
  try {
    makePrivateFolder(cache);
  } catch {
    return; // no cache where the state folder cannot be made; the command itself says why, if it needs it
  }
  // Node makes its own version folder inside (v26.12.1-x64-<hash>-<uid>) as it enables the cache,
  // with mkdir's default mode too; a private umask for that one call makes it 0700. The files it
  // writes later are 0600 whatever the umask.
  const umaskBefore = process.umask(0o077);
  try {
    enableCompileCache(cache);
  } finally {
    process.umask(umaskBefore);
  }
}

/**
 * A CLI run holds little (its live heap is about 13 MB after 100 steps), but by default V8 lets
 * the young generation grow to 16 MB of semi-spaces and optimizes every warm function, whose
 * compile zones and code touch ~10 MB more: a 100-step run peaked at 82 MB RSS on Node 20.
 * Keeping the young generation at its first size (more, smaller scavenges) and optimizing only
 * functions ten times as hot as V8's default brings it to ~65 MB with no measurable change in
 * own time per step (bench: `npm run bench`). Only the CLI does this: it owns the process; the
 * library leaves its host's V8 alone. The flags are read when used, so setting them now works.
 */
async function useLeanHeap(): Promise<void> {
  const { setFlagsFromString } = await import("node:v8");
  for (const flag of leanHeapFlags(process.versions.v8)) setFlagsFromString(flag);
}

/**
 * The lean-heap flags the running V8 has. An unknown flag is not an exception: V8 prints
 * `Error: unrecognized flag` on stderr, so a flag is set only on a V8 known to have it. V8 12
 * (Node 22) replaced the bytecode `--interrupt-budget` with invocation counts per tier; Maglev,
 * on by default from V8 13 (Node 24), gets the same tenfold count. A V8 newer than the newest
 * we test (14, Node 26) gets nothing until it is tested: a stray line on every run costs more
 * than a few MB (the CLI tests assert an empty stderr on every Node that CI runs).
 */
function leanHeapFlags(v8Version: string): string[] {
  const major = Number.parseInt(v8Version, 10);
  if (major === 11) return ["--semi-space-growth-factor=1", `--interrupt-budget=${10 * V8_11_INTERRUPT_BUDGET}`];
  if (major >= 12 && major <= NEWEST_TESTED_V8) {
    return [
      "--semi-space-growth-factor=1",
      `--invocation-count-for-turbofan=${10 * V8_12_TURBOFAN_COUNT}`,
      `--invocation-count-for-maglev=${10 * V8_12_MAGLEV_COUNT}`,
    ];
  }
  return [];
}

/** V8's default `--interrupt-budget` in V8 11 (Node 20): how much bytecode runs before a function is weighed for optimizing. */
const V8_11_INTERRUPT_BUDGET = 67_584;
/** V8 12 to 14's defaults (Node 22, 24, 26): calls before a function is optimized by TurboFan, by Maglev. */
const V8_12_TURBOFAN_COUNT = 3000;
const V8_12_MAGLEV_COUNT = 400;
/** V8 14.6 is Node 26's; .ci/run tests each of 20, 22, 24, 26 (scripts/node-versions.sh). */
const NEWEST_TESTED_V8 = 14;

async function help(): Promise<number> {
  process.stdout.write(await helpText());
  return 0;
}

/** False when the folder harness was started in has been deleted: every later cwd() would throw ENOENT. */
function isCurrentFolderThere(): boolean {
  try {
    process.cwd();
    return true;
  } catch {
    return false;
  }
}

function version(): number {
  process.stdout.write(`${VERSION}\n`);
  return 0;
}

/** Exits once stdout has flushed: open sockets or timers must not keep a finished run alive. */
function exit(code: number): void {
  process.stdout.write("", () => process.exit(code));
}

main(process.argv.slice(2)).then(exit, (error: unknown) => {
  process.stderr.write(
    `harness: internal error: ${showControlChars(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`,
  );
  exit(1);
});

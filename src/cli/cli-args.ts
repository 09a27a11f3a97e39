// Every command-line flag, defined once: a zod schema that checks and coerces its value, and its
// one-letter form. The CLI, `harness acp` and `harness batch` each pick the flags they take from
// this table, so a flag means the same everywhere; adding one is one line here (and one in --help).
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { APPROVAL_MODES } from "../permissions/policy.ts";
import { MIN_CONTEXT_WINDOW } from "../providers/model-info.ts";
import { parseThinking } from "../providers/thinking-levels.ts";
import { WIRE_API_NAMES, wireKind } from "../providers/wire-apis.ts";
import { closestName } from "../shared/edit-distance.ts";
import { JSON_FORMATS, OUTPUT_FORMATS } from "../ui/headless/headless-output.ts";
import { withBareValues } from "./bare-flag-values.ts";
import { withClaudeFlags } from "./claude-flags.ts";
import { BATCH_FLAG_SPECS, SERVE_FLAG_SPECS } from "./flag-schemas.ts";
import {
  directory,
  jsonOrFile,
  oneOf,
  positiveInteger,
  positiveNumber,
  seconds,
  text,
  textOrFile,
  toggle,
} from "./flag-values.ts";

/** The most tasks at once one machine is allowed (each is a Node process). */
export const MAX_CONCURRENCY = 256;

/** A flag's value, or the flag itself, is wrong: print the message and exit 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** One flag: how its value is read and checked (the message completes `--name takes ...`), and its short form. */
interface FlagSpec {
  schema: z.ZodType;
  short?: string;
  /** Given more than once, each value counts (the schema then checks an array). */
  multiple?: true;
}

export const FLAGS = {
  print: { schema: text, short: "p" },
  provider: { schema: text },
  model: { schema: text },
  "base-url": { schema: text },
  api: { schema: oneOf(WIRE_API_NAMES).transform(wireKind) },
  "max-turns": { schema: positiveInteger("takes a positive whole number") },
  "max-tokens": { schema: positiveInteger("takes a positive whole number") },
  "context-window": {
    schema: positiveInteger("takes a number of tokens").refine(
      (tokens) => tokens >= MIN_CONTEXT_WINDOW,
      `takes at least ${MIN_CONTEXT_WINDOW} tokens (the system prompt and tools alone are about 2k)`,
    ),
  },
  thinking: {
    schema: text.transform((value, context) => {
      const level = parseThinking(value);
      if (level !== undefined) return level;
      context.addIssue("takes off, low, medium, high or a token budget (a positive whole number)");
      return z.NEVER;
    }),
  },
  "request-timeout": { schema: seconds },
  "idle-timeout": { schema: seconds },
  yes: { schema: toggle, short: "y" },
  approve: { schema: oneOf(APPROVAL_MODES) },
  sandbox: { schema: oneOf(["on", "off"]) },
  "allow-network": { schema: toggle },
  trust: { schema: toggle },
  "allow-home": { schema: toggle },
  output: { schema: oneOf(OUTPUT_FORMATS) },
  // Claude Code's name for --output, so its scripts' command lines work unchanged.
  "output-format": { schema: oneOf(OUTPUT_FORMATS) },
  // The shapes json and stream-json are written in: harness's versioned events, or Claude Code's messages.
  format: { schema: oneOf(JSON_FORMATS) },
  input: { schema: oneOf(["stream-json"]) },
  // Claude Code's name for --input.
  "input-format": { schema: oneOf(["stream-json"]) },
  "system-prompt": { schema: textOrFile },
  "append-system-prompt": { schema: textOrFile },
  debug: { schema: toggle },
  "debug-file": { schema: text },
  // The answer's shape (tools/answer-schema.ts); Codex's name for it is --output-schema.
  "json-schema": { schema: jsonOrFile },
  "fallback-model": {
    schema: text
      .transform((list) => list.split(",").map((entry) => entry.trim()))
      .refine((list) => list.every(Boolean), "takes [provider:]model entries separated by commas"),
  },
  "output-schema": { schema: jsonOrFile },
  // Resolved where the command was typed, as the shell completed it (also with --cwd).
  image: { schema: z.array(z.string().transform((file) => resolve(file))), multiple: true },
  cwd: { schema: directory },
  continue: { schema: toggle, short: "c" },
  resume: { schema: text, short: "r" },
  fork: { schema: toggle },
  // Empty (a bare -w): the worktree is named like a session id (wiring/session-worktree.ts checks names).
  worktree: { schema: text, short: "w" },
  // Best of N (cli/best-of-n.ts): attempts in worktrees of their own, each one's test, the pick.
  attempts: {
    schema: positiveInteger("takes a whole number from 1 to 16").pipe(
      z.number().max(16, "takes a whole number from 1 to 16"),
    ),
  },
  test: { schema: text },
  pick: { schema: oneOf(["best"]) },
  help: { schema: toggle, short: "h" },
  version: { schema: toggle },
  // harness undo
  session: { schema: text },
  turns: { schema: positiveInteger("takes a positive whole number of turns") },
  out: { schema: text }, // harness batch, to max-cost
  concurrency: {
    schema: positiveInteger(`takes a whole number from 1 to ${MAX_CONCURRENCY}`).pipe(
      z.number().max(MAX_CONCURRENCY, `takes a whole number from 1 to ${MAX_CONCURRENCY}`),
    ),
  },
  workdir: { schema: text },
  ...BATCH_FLAG_SPECS,
  html: { schema: text },
  json: { schema: toggle },
  rerun: { schema: toggle },
  "max-cost": { schema: positiveNumber("takes an amount of USD above 0, such as 2.50").transform(Number) },
  snapshots: { schema: toggle },
  // harness worker (--allow-dir is resolved where typed, and judged when the worker starts)
  "allow-models": { schema: text },
  "allow-dir": { schema: z.array(directory.transform((dir) => resolve(dir))), multiple: true },
  "allow-repo": { schema: z.array(z.string().min(1)), multiple: true },
  ...SERVE_FLAG_SPECS,
} satisfies Record<string, FlagSpec>;

export type FlagName = keyof typeof FLAGS;

/** Parsed flags: each one given has its checked, coerced value. */
export type Flags<N extends FlagName> = { [K in N]?: z.output<(typeof FLAGS)[K]["schema"]> };

/** The flags of a prompt run (`harness [options] [prompt words...]`). */
export const RUN_FLAGS = [
  "print",
  "provider",
  "model",
  "base-url",
  "api",
  "max-turns",
  "max-tokens",
  "context-window",
  "thinking",
  "request-timeout",
  "idle-timeout",
  "yes",
  "approve",
  "sandbox",
  "allow-network",
  "trust",
  "allow-home",
  "output",
  "output-format",
  "format",
  "input",
  "input-format",
  "system-prompt",
  "append-system-prompt",
  "debug",
  "debug-file",
  "json-schema",
  "output-schema",
  "fallback-model",
  "image",
  "cwd",
  "continue",
  "resume",
  "fork",
  "worktree",
  "attempts",
  "test",
  "pick",
  "help",
  "version",
] as const satisfies readonly FlagName[];

/** The provider flags every way of running a session takes (a run, `harness acp`, `harness batch`). */
export const PROVIDER_FLAGS = [
  "provider",
  "model",
  "base-url",
  "api",
  "thinking",
  "max-turns",
] as const satisfies readonly FlagName[];

/** The parsed command line of a prompt run (Claude Code's `--output-format` and `--input-format` are folded into `output` and `input`). */
export type CliFlags = Flags<
  Exclude<(typeof RUN_FLAGS)[number], "output-format" | "input-format" | "output-schema">
> & {
  positionals: string[];
};

/**
 * Reads `argv` against the named flags; throws UsageError for an unknown flag, a missing value,
 * a value its schema refuses, or prompt words where none are taken.
 */
export function parseFlags<N extends FlagName>(
  argv: string[],
  names: readonly N[],
  options: { positionals?: boolean } = {},
): { flags: Flags<N>; positionals: string[] } {
  const specs: Record<string, FlagSpec> = FLAGS;
  const tokens = Object.fromEntries(
    names.map((name) => [
      name,
      {
        type: specs[name].schema instanceof z.ZodBoolean ? ("boolean" as const) : ("string" as const),
        ...(specs[name].short ? { short: specs[name].short } : {}),
        ...(specs[name].multiple ? { multiple: true } : {}),
      },
    ]),
  );
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: tokens, allowPositionals: options.positionals ?? false, strict: true });
  } catch (error) {
    // node:util's own complaints (unknown flag, missing value, stray word) are the user's to fix.
    if (String((error as { code?: unknown }).code).startsWith("ERR_PARSE_ARGS"))
      throw new UsageError(describeArgvError(error as ArgvError, names));
    throw error;
  }
  const flags: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(parsed.values)) {
    const result = specs[name].schema.safeParse(value);
    if (!result.success) throw new UsageError(`--${name} ${result.error.issues[0]?.message}`);
    flags[name] = result.data;
  }
  return { flags: flags as Flags<N>, positionals: parsed.positionals };
}

/** A prompt run's command line, parsed and checked as a whole; throws UsageError. */
export function parseRunFlags(argv: string[]): CliFlags {
  const translated = withClaudeFlags(withBareValues(argv));
  if (!Array.isArray(translated)) throw new UsageError(translated.refusal);
  const parsed = parseFlags(translated, RUN_FLAGS, { positionals: true });
  const {
    "output-format": outputFormat,
    "input-format": inputFormat,
    "output-schema": schema,
    ...flags
  } = parsed.flags;
  const { positionals } = parsed;
  if (schema !== undefined && flags["json-schema"] !== undefined)
    throw new UsageError("--json-schema and --output-schema are one flag (Codex's name is the second); give one");
  flags["json-schema"] ??= schema;
  if (outputFormat !== undefined && flags.output !== undefined && outputFormat !== flags.output)
    throw new UsageError(`--output ${flags.output} and --output-format ${outputFormat} disagree; give one`);
  flags.output ??= outputFormat;
  flags.input ??= inputFormat;
  if (flags.format !== undefined && (flags.output ?? "text") === "text")
    throw new UsageError(`--format ${flags.format} shapes --output json or stream-json; text has no shapes`);
  if (flags.worktree !== undefined && (flags.continue || flags.resume !== undefined))
    throw new UsageError(
      "--worktree starts a new session in a new worktree; to continue a worktree's session, give -c or -r alone (it works in its worktree)",
    );
  if (flags.yes && flags.approve !== undefined && flags.approve !== "all")
    throw new UsageError(`--yes means --approve all; drop one of --yes and --approve ${flags.approve}`);
  if (flags.input !== undefined) {
    if (flags.output !== "stream-json") throw new UsageError("--input stream-json needs --output stream-json");
    if (flags.print !== undefined || positionals.length > 0)
      throw new UsageError("--input stream-json reads the prompts from stdin: give no -p or prompt words");
    if (flags.image !== undefined)
      throw new UsageError("--image goes with one prompt (-p or prompt words), not with --input stream-json");
  }
  return { ...flags, positionals };
}

/**
 * `harness sesions`: a lone word that is nearly a subcommand is a typo, not a one-word prompt
 * (which would start a session). Returns the message for it, or undefined. `help` points at `--help`.
 */
export function mistypedSubcommand(argv: string[], subcommands: readonly string[]): string | undefined {
  if (argv.length !== 1 || argv[0].startsWith("-")) return undefined;
  const word = argv[0];
  const meant = closestName(word, subcommands, maxTypoDistance(word));
  if (!meant) return undefined;
  return `"${word}" is not a command; did you mean harness ${meant}? (to send it as a prompt: harness -p ${word})`;
}

/** A word this close to a name is taken as a typo of it (short words must be closer: `hello` is not `help`). */
function maxTypoDistance(word: string): number {
  return word.length <= 5 ? 1 : 2;
}

type ArgvError = Error & { code: string };

/**
 * A subcommand's own node:util parseArgs complaint in our words (`names`: its options, for "did
 * you mean"), as the flags of a run are worded; any other error's message as it is.
 */
export function argvErrorMessage(error: unknown, names: readonly string[]): string {
  return String((error as { code?: unknown }).code).startsWith("ERR_PARSE_ARGS")
    ? describeArgvError(error as ArgvError, names as readonly FlagName[])
    : (error as Error).message;
}

/** node:util parseArgs' complaints, in our words, with the nearest flag suggested for an unknown one. */
function describeArgvError(error: ArgvError, names: readonly FlagName[]): string {
  const quoted = /'([^']+)'/.exec(error.message)?.[1] ?? "";
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION": {
      const meant = closestFlag(quoted, names);
      return `unknown option ${quoted}${meant ? `; did you mean --${meant}?` : ""}`;
    }
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE": {
      const flag = /--[\w-]+/.exec(error.message)?.[0] ?? quoted;
      if (/does not take an argument/.test(error.message)) return `${flag} takes no value`;
      if (/ambiguous/.test(error.message))
        return `${quoted} needs a value (one that starts with "-" is written ${flagForShort(quoted, names)}=-value)`;
      return `${flag} needs a value`;
    }
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument "${quoted}" (this command takes no words, only options)`;
    default:
      return error.message;
  }
}

/** `--output-type` → `output` (a flag it extends), `--out` → `output` (one it starts), `--modle` → `model` (a typo). */
function closestFlag(option: string, names: readonly FlagName[]): string | undefined {
  const typed = option.replace(/^-+/, "").split("=")[0];
  if (typed.length < 2) return undefined;
  const extended = names.filter((name) => typed.startsWith(`${name}-`)).sort((a, b) => b.length - a.length)[0];
  return extended ?? names.find((name) => name.startsWith(typed)) ?? closestName(typed, names, maxTypoDistance(typed));
}

/** `-p` → `--print`. */
function flagForShort(short: string, names: readonly FlagName[]): string {
  const specs: Record<string, FlagSpec> = FLAGS;
  const name = names.find((candidate) => `-${specs[candidate]?.short}` === short);
  return name ? `--${name}` : short;
}

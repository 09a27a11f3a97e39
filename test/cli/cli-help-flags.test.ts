// A flag is one line in FLAGS (src/cli/cli-args.ts) and its line in the help text: each command's
// `--help`, as the built CLI prints it, names every flag that command takes (and its short form),
// and every flag of the table is taken by some command, so none is undocumented or left over.
import assert from "node:assert/strict";
import { test } from "node:test";
import { FLAGS, type FlagName, RUN_FLAGS } from "../../src/cli/cli-args.ts";
import { ACP_FLAGS } from "../../src/cli/commands/acp.ts";
import { ATTACH_FLAGS } from "../../src/cli/commands/attach.ts";
import { BATCH_FLAGS } from "../../src/cli/commands/batch.ts";
import { CLEAN_FLAGS } from "../../src/cli/commands/batch-clean.ts";
import { REPORT_FLAGS } from "../../src/cli/commands/batch-report.ts";
import { SERVE_FLAGS } from "../../src/cli/commands/serve.ts";
import { UNDO_FLAGS } from "../../src/cli/commands/undo.ts";
import { WORKER_FLAGS } from "../../src/cli/commands/worker.ts";
import { PRESETS } from "../../src/wiring/defaults.ts";
import { runCli } from "../support/helpers.ts";

/** Each command's argv before `--help`, and the flags it reads from the table. */
const COMMANDS: Array<{ argv: string[]; flags: readonly FlagName[] }> = [
  { argv: [], flags: RUN_FLAGS },
  { argv: ["acp"], flags: ACP_FLAGS },
  { argv: ["batch"], flags: BATCH_FLAGS },
  { argv: ["batch", "report"], flags: REPORT_FLAGS },
  { argv: ["batch", "clean"], flags: CLEAN_FLAGS },
  { argv: ["undo"], flags: UNDO_FLAGS },
  { argv: ["serve"], flags: SERVE_FLAGS },
  { argv: ["attach"], flags: ATTACH_FLAGS },
  { argv: ["worker"], flags: WORKER_FLAGS },
];

/** `--name` as a word of its own: `--output` is not found inside `--output-format`. */
function mentions(help: string, flag: string): boolean {
  return new RegExp(`(^|[\\s,(\\[|])${flag}(?![\\w-])`).test(help);
}

test("each command's --help names every flag it takes from FLAGS, with its short form", async () => {
  const missing: string[] = [];
  for (const { argv, flags } of COMMANDS) {
    const help = await runCli([...argv, "--help"]);
    const command = ["harness", ...argv].join(" ");
    assert.equal(help.code, 0, `${command} --help: ${help.stderr}`);
    // A subcommand's help is what its --help prints; only the main one lists --help among the options.
    for (const name of flags.filter((flag) => argv.length === 0 || flag !== "help")) {
      const short = (FLAGS[name] as { short?: string }).short;
      if (!mentions(help.stdout, `--${name}`)) missing.push(`${command}: --${name}`);
      if (short && !mentions(help.stdout, `-${short}`)) missing.push(`${command}: -${short}`);
    }
  }
  assert.deepEqual(missing, []);
});

test("every flag in FLAGS is taken by a command, so each is in some --help", () => {
  const taken = new Set(COMMANDS.flatMap(({ flags }) => flags));
  assert.deepEqual(
    Object.keys(FLAGS).filter((name) => !taken.has(name as FlagName)),
    [],
  );
});

test("the check finds a flag by its own name only", () => {
  assert.ok(mentions("  --output <format>   text", "--output"));
  assert.ok(!mentions("  also --output-format, as Claude Code spells it", "--output"));
  assert.ok(mentions("  -p, --print <prompt>", "-p"));
  assert.ok(!mentions("  harness models --provider", "--provide"));
});

test("--help names every provider of the presets, so a new one is never missing from it", async () => {
  const help = await runCli(["--help"]);
  const line = /--provider <name>\s+([\s\S]*?)\n {2}--/.exec(help.stdout)?.[1] ?? "";
  for (const name of Object.keys(PRESETS)) assert.ok(mentions(line, name), `--provider's help lacks ${name}: ${line}`);
});

// The test tiers AGENTS.md describes, checked: every test file lives in a tier folder, each tier has
// its npm script and `npm test` runs them all, and the unit tier needs no build (it starts neither
// the built CLI nor tmux, and runs as no other user), so `npm run test:unit` stays seconds long.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "../support/helpers.ts";

const TEST = join(ROOT, "test");
const TIERS = ["unit", "cli", "terminal", "attacks", "install"];

test("test/ holds the tier folders and support/, and every test file is in a tier", () => {
  const entries = readdirSync(TEST, { withFileTypes: true });
  const stray = entries.filter((entry) => !entry.isDirectory() || ![...TIERS, "support"].includes(entry.name));
  assert.deepEqual(
    stray.map((entry) => entry.name),
    [],
    "a test file goes in the tier folder of what it drives (AGENTS.md, Tests); shared code in test/support/",
  );
  const supportTests = readdirSync(join(TEST, "support"), { recursive: true, encoding: "utf8" }).filter((name) =>
    name.endsWith(".test.ts"),
  );
  assert.deepEqual(supportTests, [], "test/support/ holds no test files: `npm test` would not run them");
});

test("each tier has its npm script, and npm test runs every tier", () => {
  const scripts: Record<string, string> = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts;
  for (const tier of TIERS) assert.match(scripts[`test:${tier}`] ?? "", new RegExp(` test/${tier}/\\*\\.test\\.ts$`));
  assert.match(scripts.test, / test\/\*\/\*\.test\.ts$/);
  assert.doesNotMatch(scripts["test:unit"], /build/, "the unit tier runs on src/ through tsx, unbuilt");
});

test("unit tests start no built CLI, no tmux and no other user: they run unbuilt, in seconds", () => {
  const offenders: string[] = [];
  for (const name of readdirSync(join(TEST, "unit")).filter((file) => file.endsWith(".test.ts"))) {
    const text = readFileSync(join(TEST, "unit", name), "utf8");
    const helpers = [...text.matchAll(/import\s*\{([^}]*)\}\s*from\s*"\.\.\/support\/helpers\.ts"/g)].flatMap((m) =>
      m[1].split(",").map((part) => part.trim()),
    );
    const cli = helpers.filter((binding) => ["runCli", "runInTerminal", "CLI"].includes(binding));
    if (cli.length > 0) offenders.push(`${name}: ${cli.join(", ")} (test/cli/)`);
    if (/support\/tui-tmux\.ts/.test(text)) offenders.push(`${name}: tmux (test/terminal/)`);
    if (/support\/identities\.ts/.test(text)) offenders.push(`${name}: runs as nobody (test/attacks/)`);
    if (/bin\/harness\.js|ROOT,\s*"dist"/.test(text)) offenders.push(`${name}: the build (test/cli/ or test/install/)`);
  }
  assert.deepEqual(offenders, []);
});

// Who an attack test runs harness as: root (the test process) and nobody (through setpriv), so a
// boundary that holds only because of file modes, or only because of root's powers, shows up.
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { FakeLLM } from "./fake-llm/server.ts";
import { type CliResult, cleanEnv, fakeFlags, ROOT, runCli } from "./helpers.ts";
import { onTestEnd } from "./teardown.ts";

export const IDENTITIES = ["root", "nobody"] as const;
export type Identity = (typeof IDENTITIES)[number];

/** Root is needed to run as root, and to switch to nobody; elsewhere these tests say why they skip. */
export const asRootOnly =
  process.getuid?.() === 0 ? false : "needs root (to test as root, and to switch to nobody with setpriv)";

/**
 * Why the nobody runs cannot happen here: they need root (to switch), setpriv, and a repository
 * nobody may read (its node_modules and dist run as nobody): a clone inside a private folder (a
 * `mktemp -d` of mode 0700) is not, and there the nobody runs skip with the reason instead of failing.
 */
export const asNobodyOnly: string | false = (() => {
  if (asRootOnly) return asRootOnly;
  const probe = join(ROOT, "node_modules", "tsx", "package.json");
  try {
    execFileSync("setpriv", [...runAs("nobody"), "test", "-r", probe].slice(1), { stdio: "ignore" });
    return false;
  } catch {
    return `nobody cannot read ${probe} (the repository is in a folder only its owner may enter)`;
  }
})();

/** What skips a test run as `identity`, or false. */
export function skipAs(identity: Identity): string | false {
  return identity === "nobody" ? asNobodyOnly : asRootOnly;
}

/** The command prefix that runs a program as `identity` (empty for root: the test process itself). */
export function runAs(identity: Identity): string[] {
  return identity === "root" ? [] : ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"];
}

/**
 * A canary HOME under /var/tmp (outside the sandbox's private /tmp), removed after the test.
 * `removeInBackground`: for a tree of many thousand folders, whose removal took a minute on this
 * disk; a detached `rm -rf` does it after the test instead of holding the test up.
 */
export function canaryHomeDir(prefix: string, options: { removeInBackground?: boolean } = {}): string {
  const home = mkdtempSync(`/var/tmp/${prefix}`);
  chmodSync(home, 0o755);
  onTestEnd(() =>
    options.removeInBackground
      ? spawn("rm", ["-rf", home], { detached: true, stdio: "ignore" }).unref()
      : rmSync(home, { recursive: true, force: true }),
  );
  return home;
}

/** Hands a folder built by the test to `identity`, so harness running as them owns its HOME. */
export function handTo(identity: Identity, folder: string): void {
  if (identity === "nobody") execFileSync("chown", ["-R", "nobody:nogroup", folder]);
}

/**
 * `harness -y --sandbox on -p go` in `cwd` as `identity`, against `fake`, with HOME, HARNESS_HOME
 * (`home/.harness`) and Claude Code's folder (`home/.claude`) in the canary home (`env` adds to it).
 */
export function runYesAs(
  identity: Identity,
  { home, cwd, fake, env = {} }: { home: string; cwd: string; fake: FakeLLM; env?: Record<string, string> },
): Promise<CliResult> {
  const base = { HOME: home, HARNESS_HOME: join(home, ".harness"), CLAUDE_CONFIG_DIR: join(home, ".claude") };
  return runCli(["-y", "--sandbox", "on", ...fakeFlags(fake), "-p", "go"], {
    cwd,
    env: cleanEnv({ ...base, ...env }),
    wrap: runAs(identity),
  });
}

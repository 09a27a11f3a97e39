// Who an attack test runs harness as: root (the test process) and nobody (through setpriv), so a
// boundary that holds only because of file modes, or only because of root's powers, shows up.
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { onTestEnd } from "./teardown.ts";

export const IDENTITIES = ["root", "nobody"] as const;
export type Identity = (typeof IDENTITIES)[number];

/** Root is needed to run as root, and to switch to nobody; elsewhere these tests say why they skip. */
export const asRootOnly =
  process.getuid?.() === 0 ? false : "needs root (to test as root, and to switch to nobody with setpriv)";

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

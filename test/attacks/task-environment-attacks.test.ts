// A task environment's commands (docs/batch.md#task-environments-environment) against a canary in
// the host's HOME (under /var/tmp, readable by everyone on the host, so only the sandbox keeps it
// out of reach), as root and as nobody: by its path, through /proc's root links, up from the
// repository's two mounts, and through a symlink planted in the repository; and the rootfs
// itself cannot be written. The sandbox is the one a batch task gets (setupPermissions with the
// variables the batch sets), run here as each identity without the CLI.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { setupPermissions } from "../../src/permissions/setup-permissions.ts";
import { tempDir } from "../support/helpers.ts";
import { canaryHomeDir, IDENTITIES, runAs, skipAs } from "../support/identities.ts";
import { makeMinimalRootfs, ROOTFS_MARKER } from "../support/minimal-rootfs.ts";
import { needs } from "../support/system-programs.ts";

const CANARY = "CANARY-task-environment-7d1e";

for (const identity of IDENTITIES) {
  test(`as ${identity}: commands in a rootfs environment cannot read the host HOME's canary nor write the rootfs`, {
    skip: needs("bwrap") || skipAs(identity),
  }, () => {
    const home = canaryHomeDir("harness-rootfs-home-");
    const secret = join(home, "secret.txt");
    writeFileSync(secret, `${CANARY}\n`, { mode: 0o644 });
    const dir = tempDir();
    chmodSync(dir, 0o755);
    const rootfs = makeMinimalRootfs(join(dir, "rootfs"));
    const workspace = join(dir, "work");
    mkdirSync(workspace, { mode: 0o777 });
    chmodSync(workspace, 0o777);
    symlinkSync(secret, join(workspace, "leak"));
    const env = { HOME: home, PATH: process.env.PATH, HARNESS_SANDBOX_ROOTFS: rootfs };
    const setup = setupPermissions({ approve: "all" }, { cwd: workspace, env, harnessHome: join(home, ".harness") });
    const attacks = [
      `cat ${ROOTFS_MARKER.path}`,
      `cat "$HOME/secret.txt"`,
      `cat ${secret}`,
      `cat /proc/self/root${secret}`,
      `cat /proc/1/root${secret}`,
      `cat /testbed/../..${secret}`,
      `cat ${workspace}/../../..${secret}`,
      "cat leak",
      "ls /var/tmp",
      "echo owned > /etc/owned",
      "echo owned > /usr/owned",
    ];
    const script = attacks.map((attack) => `echo "== ${attack.replaceAll('"', "'")}"; ${attack} 2>&1`).join("; ");
    const argv = [...runAs(identity), ...(setup.wrapCommand?.(["sh", "-c", script], workspace) ?? [])];
    assert.ok(setup.wrapCommand, "the rootfs needs the bwrap sandbox");
    const run = spawnSync(argv[0], argv.slice(1), { encoding: "utf8", env: setup.env, timeout: 60_000 });
    const output = `${run.stdout}${run.stderr}`;
    // The control: the commands did run, inside the rootfs.
    assert.match(output, new RegExp(ROOTFS_MARKER.text), output);
    assert.doesNotMatch(output, new RegExp(CANARY), output);
    assert.equal(existsSync(join(rootfs, "etc", "owned")), false);
    assert.equal(existsSync(join(rootfs, "usr", "owned")), false);
    assert.equal(readFileSync(secret, "utf8"), `${CANARY}\n`);
  });
}

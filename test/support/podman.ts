// podman for the image tests, with no daemon and nothing of the machine's own storage: each test
// gets its storage (vfs: no overlay mounts, which a container may not make), its run state and
// its events log in a temp folder removed after the test file (tempDir), through the two files
// podman reads from the environment (CONTAINERS_STORAGE_CONF, CONTAINERS_CONF; containers-storage.conf(5),
// containers.conf(5)). cgroupfs: no systemd to ask here. No registry is reached: images are
// imported from a folder.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers.ts";

/** The variables that give podman (and the harness's calls to it) a storage of this test's own. */
export function podmanEnv(): Record<string, string> {
  const dir = tempDir("harness-podman-");
  mkdirSync(join(dir, "root"));
  mkdirSync(join(dir, "run"));
  writeFileSync(
    join(dir, "storage.conf"),
    `[storage]\ndriver = "vfs"\ngraphroot = "${join(dir, "root")}"\nrunroot = "${join(dir, "run")}"\n`,
  );
  writeFileSync(
    join(dir, "containers.conf"),
    `[engine]\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\nevents_logfile_path = "${join(dir, "events.log")}"\n`,
  );
  return { CONTAINERS_STORAGE_CONF: join(dir, "storage.conf"), CONTAINERS_CONF: join(dir, "containers.conf") };
}

/** Makes image `ref` from a root filesystem folder (`tar | podman import`), in the storage `env` names. */
export function importImage(rootfs: string, ref: string, env: Record<string, string>): void {
  execFileSync("sh", ["-c", 'tar -C "$0" -c . | podman import - "$1"', rootfs, ref], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
}

/** The containers in that storage (all, running or not): none should be left after an unpack. */
export function podmanContainers(env: Record<string, string>): string {
  return execFileSync("podman", ["ps", "--all", "--quiet"], { env: { ...process.env, ...env }, encoding: "utf8" });
}

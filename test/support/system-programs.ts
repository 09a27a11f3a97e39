// Optional system programs some tests drive for real. A missing one makes those tests skip with a
// reason (and the install command) on a developer's machine; under HARNESS_TEST_REQUIRE_ALL=1, which
// .ci/run sets after installing them, a missing one fails the run instead, so CI never skips silently.
import { spawnSync } from "node:child_process";

/** The programs tests may need, with the Debian package that brings each. */
const PACKAGES = {
  bwrap: "bubblewrap",
  tmux: "tmux",
  chromium: "chromium",
  "redis-server": "redis-server",
  "redis-cli": "redis-tools",
  rg: "ripgrep",
  script: "bsdutils",
  setpriv: "util-linux",
  openssl: "openssl",
  curl: "curl",
  shellcheck: "shellcheck",
  podman: "podman",
} as const;

/** A program some tests need that a machine may lack. */
export type SystemProgram = keyof typeof PACKAGES;

const found = new Map<SystemProgram, boolean>();

function isInstalled(program: SystemProgram): boolean {
  let known = found.get(program);
  if (known === undefined) {
    known = spawnSync("sh", ["-c", `command -v ${program}`], { stdio: "ignore", timeout: 5000 }).status === 0;
    found.set(program, known);
  }
  return known;
}

/**
 * For `test(name, { skip: needs("bwrap") }, ...)`: false when every program is there, else the skip
 * reason. Throws under HARNESS_TEST_REQUIRE_ALL=1, so CI fails rather than skips.
 */
export function needs(...programs: SystemProgram[]): false | string {
  const missing = programs.filter((program) => !isInstalled(program));
  if (missing.length === 0) return false;
  const reason = missing.map((program) => `${program} not installed (apt-get install ${PACKAGES[program]})`).join("; ");
  if (process.env.HARNESS_TEST_REQUIRE_ALL === "1") throw new Error(`HARNESS_TEST_REQUIRE_ALL=1 but ${reason}`);
  return reason;
}

// Whether commands can be sandboxed on this machine, found out once per process by trying.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { ISOLATION_ARGS } from "./bwrap.ts";

/** How long the bwrap trial may take before it counts as not working. */
const PROBE_TIMEOUT_MS = 5000;
const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** The sandbox this machine can run, or why none can, with the fix. */
export type SandboxSupport = { kind: "bwrap" } | { kind: "sandbox-exec" } | { kind: "none"; problem: string; fix: string };

let cached: SandboxSupport | undefined;

/**
 * Linux: bwrap must be installed and able to start with the namespaces we use (a container
 * may forbid them). macOS: sandbox-exec ships with the system. Elsewhere: none.
 */
export function detectSandbox(platform: NodeJS.Platform = process.platform): SandboxSupport {
  cached ??= probe(platform);
  return cached;
}

function probe(platform: NodeJS.Platform): SandboxSupport {
  switch (platform) {
    case "linux": {
      const trial = spawnSync("bwrap", ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", ...ISOLATION_ARGS, "--unshare-net", "--die-with-parent", "--", "true"], {
        stdio: ["ignore", "ignore", "pipe"],
        timeout: PROBE_TIMEOUT_MS,
        encoding: "utf8",
      });
      if (trial.error && (trial.error as NodeJS.ErrnoException).code === "ENOENT") {
        return { kind: "none", problem: "bubblewrap (bwrap) is not installed", fix: "install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap)" };
      }
      if (trial.status === 0) return { kind: "bwrap" };
      const reason = (trial.stderr ?? "").trim().split("\n")[0] || trial.error?.message || `exit status ${trial.status}`;
      if (/unknown option/i.test(reason)) return { kind: "none", problem: `bwrap is too old (${reason})`, fix: "install bubblewrap 0.8 or newer" };
      return {
        kind: "none",
        problem: `bwrap cannot start here (${reason})`,
        fix: "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 or kernel.apparmor_restrict_unprivileged_userns=0), or in a container run it with --privileged or seccomp=unconfined",
      };
    }
    case "darwin":
      return existsSync(SANDBOX_EXEC) ? { kind: "sandbox-exec" } : { kind: "none", problem: `${SANDBOX_EXEC} is missing`, fix: "use a macOS with sandbox-exec" };
    default:
      return { kind: "none", problem: `no sandbox is supported on ${platform}`, fix: "run harness on Linux (with bubblewrap) or macOS" };
  }
}

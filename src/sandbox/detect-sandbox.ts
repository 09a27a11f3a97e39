// Whether commands can be sandboxed on this machine, found out once per process by trying.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { systemProgram } from "../shared/system-program.ts";
import { ISOLATION_ARGS } from "./bwrap.ts";
import { kernelFileArgs } from "./kernel-files.ts";

/** How long the bwrap trial may take before it counts as not working. */
const PROBE_TIMEOUT_MS = 5000;
const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** The sandbox this machine can run, or why none can, with the fix. */
export type SandboxSupport =
  | { kind: "bwrap" }
  | { kind: "sandbox-exec" }
  | { kind: "none"; problem: string; fix: string };

let cached: SandboxSupport | undefined;
let pending: Promise<SandboxSupport> | undefined;

/**
 * Linux: bwrap must be installed and able to start with the namespaces we use (a container
 * may forbid them). macOS: sandbox-exec ships with the system. Elsewhere: none. Waits for the
 * trial unless probeSandbox has already finished it.
 */
export function detectSandbox(platform: NodeJS.Platform = process.platform): SandboxSupport {
  cached ??= probe(platform);
  return cached;
}

/**
 * The same answer without blocking: bwrap's trial takes 5 to 100 ms (setting up a network
 * namespace), so the CLI starts it first thing and it runs while the harness loads.
 */
export function probeSandbox(platform: NodeJS.Platform = process.platform): Promise<SandboxSupport> {
  if (cached) return Promise.resolve(cached);
  if (platform !== "linux") return Promise.resolve(detectSandbox(platform));
  pending ??= new Promise((resolve) => {
    const trial = spawn(systemProgram("bwrap"), bwrapTrialArgs(), {
      stdio: ["ignore", "ignore", "pipe"],
      timeout: PROBE_TIMEOUT_MS,
    });
    let stderr = "";
    trial.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    let error: Error | undefined;
    trial.on("error", (failure) => (error = failure));
    trial.on("close", (status, signal) => {
      const timedOut = signal && !error ? new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`) : undefined;
      resolve((cached ??= bwrapSupport(status, stderr, error ?? timedOut)));
    });
  });
  return pending;
}

/** bwrap with every namespace and privilege setting commands get, and their /proc, running `true`. */
function bwrapTrialArgs(): string[] {
  return [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    ...kernelFileArgs(),
    ...ISOLATION_ARGS,
    "--unshare-net",
    "--die-with-parent",
    "--",
    "true",
  ];
}

function probe(platform: NodeJS.Platform): SandboxSupport {
  switch (platform) {
    case "linux": {
      const trial = spawnSync(systemProgram("bwrap"), bwrapTrialArgs(), {
        stdio: ["ignore", "ignore", "pipe"],
        timeout: PROBE_TIMEOUT_MS,
        encoding: "utf8",
      });
      return bwrapSupport(trial.status, trial.stderr ?? "", trial.error);
    }
    case "darwin":
      return existsSync(SANDBOX_EXEC)
        ? { kind: "sandbox-exec" }
        : { kind: "none", problem: `${SANDBOX_EXEC} is missing`, fix: "use a macOS with sandbox-exec" };
    default:
      return {
        kind: "none",
        problem: `no sandbox is supported on ${platform}`,
        fix: "run harness on Linux (with bubblewrap) or macOS",
      };
  }
}

/** What bwrap's trial run says: its exit status, its stderr, and the error when it could not run. */
function bwrapSupport(status: number | null, stderr: string, error: Error | undefined): SandboxSupport {
  if (error && (error as NodeJS.ErrnoException).code === "ENOENT") {
    return {
      kind: "none",
      problem: "bubblewrap (bwrap) is not installed",
      fix: "install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap)",
    };
  }
  if (status === 0) return { kind: "bwrap" };
  const reason = stderr.trim().split("\n")[0] || error?.message || `exit status ${status}`;
  if (/unknown option/i.test(reason))
    return { kind: "none", problem: `bwrap is too old (${reason})`, fix: "install bubblewrap 0.8 or newer" };
  return {
    kind: "none",
    problem: `bwrap cannot start here (${reason})`,
    fix: "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 or kernel.apparmor_restrict_unprivileged_userns=0), or in a container run it with --privileged or seccomp=unconfined",
  };
}

// macOS: sandbox-exec with a Seatbelt profile equivalent to the bwrap rules, as far as
// Seatbelt allows: writes only to the workspace, the temp folders and a few devices; the
// hidden paths unreadable; no network unless allowed. Differences from Linux: /tmp is the
// shared system one (Seatbelt cannot give a private one), and background processes are not
// confined to the command's lifetime by a PID namespace (the process-group kill still applies).
// Not tested in CI (Linux only); try it with `harness --approve all -p "touch ~/x"`.
import type { SandboxPolicy, WrapCommand } from "./sandbox-policy.ts";

/** Folders every macOS command may write besides the workspace: the temp folders and the caches of per-user temp space. */
const MACOS_WRITABLE = ["/private/tmp", "/private/var/folders"];
/** Devices commands legitimately write to. */
const MACOS_WRITABLE_DEVICES = ["/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper"];

/** The Seatbelt (SBPL) profile for a policy. */
export function macosProfile(policy: SandboxPolicy): string {
  const lines = [
    "(version 1)",
    "(allow default)",
    "(deny file-write*)",
    `(allow file-write* ${[policy.workspace, ...MACOS_WRITABLE].map((folder) => `(subpath ${quote(folder)})`).join(" ")} ${MACOS_WRITABLE_DEVICES.map((device) => `(literal ${quote(device)})`).join(" ")} (regex #"^/dev/fd/[0-9]+$") (regex #"^/dev/ttys[0-9]+$"))`,
  ];
  if (policy.hidden.length > 0) {
    const hidden = policy.hidden.map((target) => `(subpath ${quote(target)})`).join(" ");
    lines.push(`(deny file-read* file-write* ${hidden})`);
  }
  if (!policy.network) lines.push("(deny network*)", "(allow network* (local unix-socket) (remote unix-socket))");
  return `${lines.join("\n")}\n`;
}

/** Wraps commands in sandbox-exec with this policy. */
export function sandboxExecWrapper(policy: SandboxPolicy): WrapCommand {
  const profile = macosProfile(policy);
  return (argv) => ["/usr/bin/sandbox-exec", "-p", profile, ...argv];
}

/** An SBPL string literal. */
function quote(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

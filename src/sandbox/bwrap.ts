// Linux: bubblewrap. The whole file system read-only, the workspace writable, /tmp private,
// credentials hidden, the network cut, and everything the command starts dies with it.
import { statSync } from "node:fs";
import type { SandboxPolicy, WrapCommand } from "./sandbox-policy.ts";

/**
 * The bwrap arguments for a policy. Order matters: later mounts cover earlier ones, so the
 * private /tmp comes before the workspace (which may live in /tmp) and the hidden paths come
 * last (they stay hidden even inside the workspace), except one that holds the workspace.
 */
export function bwrapArgs(policy: SandboxPolicy, cwd: string): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  args.push("--bind", policy.workspace, policy.workspace);
  // Files that make the NEXT run execute commands outside the sandbox (project hooks, MCP
  // servers, git hooks) stay read-only, so a sandboxed command cannot plant them there.
  for (const name of PROTECTED_IN_WORKSPACE) {
    const path = `${policy.workspace}/${name}`;
    if (kindOf(path) !== "missing") args.push("--ro-bind", path, path);
  }
  for (const hidden of policy.hidden) {
    if (policy.workspace === hidden || policy.workspace.startsWith(`${hidden}/`)) continue;
    const kind = kindOf(hidden);
    if (kind === "folder") args.push("--tmpfs", hidden);
    else if (kind === "file") args.push("--ro-bind", "/dev/null", hidden);
  }
  // A new PID namespace: when the command ends or is killed, every process it started ends
  // too, even one that left the process group with setsid. Its own IPC and, unless allowed,
  // network namespace (loopback only, so 127.0.0.1 services on the host are out of reach).
  args.push("--unshare-pid", "--unshare-ipc");
  if (!policy.network) args.push("--unshare-net");
  // No --new-session: the bash tool already starts bwrap in a new session without a terminal
  // (detached), and keeping one process group lets its kill reach everything at once.
  args.push("--die-with-parent", "--chdir", cwd);
  return args;
}

/** Workspace paths a command may read but never change. */
const PROTECTED_IN_WORKSPACE = [".harness", ".mcp.json", ".git/hooks", ".git/config"];

/** Wraps commands in bwrap with this policy. */
export function bwrapWrapper(policy: SandboxPolicy): WrapCommand {
  return (argv, cwd) => ["bwrap", ...bwrapArgs(policy, cwd), "--", ...argv];
}

function kindOf(file: string): "folder" | "file" | "missing" {
  try {
    return statSync(file).isDirectory() ? "folder" : "file";
  } catch {
    return "missing";
  }
}

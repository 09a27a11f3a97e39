// Linux: bubblewrap. The whole file system read-only, the workspace writable (but in plan mode),
// /tmp private, credentials and host sockets hidden, /proc read-only, no capabilities, the
// network cut, and everything the command starts dies with it.
import { realpathSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { WrapCommand } from "../core/tool.ts";
import { isInside } from "../shared/is-inside.ts";
import { systemProgram } from "../shared/system-program.ts";
import { kindOf } from "./file-kind.ts";
import { homeCodeMounts } from "./home-code-mounts.ts";
import { hostSocketPaths } from "./host-sockets.ts";
import { kernelFileArgs } from "./kernel-files.ts";
import { protectedMounts } from "./protected-entries.ts";
import { hostProgram, rootfsCwd, rootfsMounts } from "./rootfs-mounts.ts";
import { PROXY_PORT, PROXY_SOCKET_INSIDE, RELAY_VARIABLE, type SandboxPolicy } from "./sandbox-policy.ts";
import { worktreeGitArgs } from "./worktree-git-mounts.ts";

/**
 * Namespaces and privileges, the same for every command (and for the start-up probe):
 * - a user namespace mapping only the caller's own uid, every capability dropped (bounding set
 *   included) and no nested user namespaces: as root or not, a command cannot mount, remount `/`
 *   read-write, unmount the masks over `~/.ssh`, or regain privileges (bwrap also sets
 *   no_new_privs, so setuid programs do not help). Root inside is uid 0 without capabilities:
 *   it can write only what root owns in the writable places; it cannot override file modes;
 *   (and, being uid 0 to sysctl's checks, nothing under /proc: kernel-files.ts);
 * - a new PID namespace: when the command ends or is killed, every process it started ends too,
 *   even one that left the process group with setsid; its own IPC namespace; and its own UTS
 *   namespace, so a host name set inside (were it ever allowed) stays inside. *Decision*: no
 *   `--hostname`: the copy keeps the host's name, so commands that print or key on it behave
 *   as outside.
 */
export const ISOLATION_ARGS = [
  "--unshare-user",
  "--disable-userns",
  "--cap-drop",
  "ALL",
  "--unshare-pid",
  "--unshare-ipc",
  "--unshare-uts",
];

/**
 * The bwrap arguments for a policy: the one place the Linux sandbox is defined. Order matters:
 * later mounts cover earlier ones, so the private /tmp comes before the workspace (which may
 * live in /tmp); /proc (a workspace of / would bring the host's back), the home folder's code
 * files and protected entries after the workspace; and hidden paths and socket folders last
 * (they stay hidden even inside the workspace), except one that holds the workspace.
 * Reads the file system (protected entries, host sockets) and may create placeholders (see
 * protected-entries.ts), so call it when the command starts. `program`, the executable the
 * sandbox starts, is kept visible (programMounts).
 */
export function bwrapArgs(policy: SandboxPolicy, cwd: string, program?: string): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--tmpfs", "/tmp"];
  if (policy.readOnlyWorkspace) {
    // Plan mode: nothing of the host is writable, so nothing in it needs guarding (and no
    // placeholder is made: the workspace stays exactly as it is).
    args.push("--ro-bind", policy.workspace, policy.workspace);
  } else {
    args.push("--bind", policy.workspace, policy.workspace);
    args.push(...worktreeGitArgs(policy.worktreeGit));
    args.push(...homeCodeMounts(policy));
    // The protected entries may bind the whole workspace again, read-only, when it is too large to
    // scan: the kernel's own mounts come after that too, or a workspace of / brings back the host's
    // /dev (unusable: no command starts) and /proc.
    args.push(...protectedMounts(policy.workspace, policy.protectedNames, policy.placeholderRecords));
  }
  args.push(...kernelFileArgs(policy.workspace));
  const masked = ["/tmp"];
  for (const hidden of policy.hidden) {
    if (isInside(policy.workspace, hidden)) continue;
    const kind = kindOf(hidden);
    if (kind === "folder") args.push("--tmpfs", hidden);
    else if (kind === "file") args.push("--ro-bind", "/dev/null", hidden);
    if (kind !== "missing") masked.push(hidden);
  }
  for (const folder of unique(policy.socketFolders.map(realOrMissing))) {
    if (folder === undefined || isInside(policy.workspace, folder) || kindOf(folder) !== "folder") continue;
    args.push("--tmpfs", folder);
    masked.push(folder);
  }
  // /etc/resolv.conf often points into /run (systemd-resolved): keep that one file for DNS.
  const resolver = realOrMissing("/etc/resolv.conf");
  if (resolver && masked.some((folder) => isInside(resolver, folder))) args.push("--ro-bind", resolver, resolver);
  const isCovered = (file: string) =>
    isInside(file, policy.workspace) || masked.some((folder) => isInside(file, folder));
  for (const socket of hostSocketPaths(isCovered)) args.push("--ro-bind", "/dev/null", socket);
  if (program) args.push(...programMounts(program, masked));
  return [...args, ...closingArgs(policy, cwd)];
}

/** Namespaces, the network and the working folder: the same on the host's `/` and on a root filesystem. */
function closingArgs(policy: SandboxPolicy, cwd: string): string[] {
  const args = [...ISOLATION_ARGS];
  // Unless allowed, its own network namespace: loopback only, so 127.0.0.1 services on the
  // host and abstract unix sockets are out of reach. With an allowlist, the proxy's socket is
  // the one way out; the command helper listens on 127.0.0.1 inside and relays to it.
  if (!policy.network) args.push("--unshare-net", ...proxyArgs(policy));
  // No --new-session: the bash tool already starts bwrap in a new session without a terminal
  // (detached), and keeping one process group lets its kill reach everything at once.
  args.push("--die-with-parent", "--chdir", cwd);
  return args;
}

/** The proxy's socket, mounted inside, and what the command helper relays to it (command-helper.ts). */
function proxyArgs(policy: SandboxPolicy): string[] {
  if (!policy.networkProxy) return [];
  const { socket, loopbackPorts, token } = policy.networkProxy;
  const relay = {
    socket: PROXY_SOCKET_INSIDE,
    token,
    listeners: [
      { port: PROXY_PORT },
      ...loopbackPorts.filter((port) => port !== PROXY_PORT).map((port) => ({ port, connect: `localhost:${port}` })),
    ],
  };
  return ["--bind", socket, PROXY_SOCKET_INSIDE, "--setenv", RELAY_VARIABLE, JSON.stringify(relay)];
}

/** Wraps commands in bwrap with this policy. */
export function bwrapWrapper(policy: SandboxPolicy): WrapCommand {
  return (argv, cwd) => {
    const { rootfs } = policy;
    if (!rootfs) return [systemProgram("bwrap"), ...bwrapArgs(policy, cwd, argv[0]), "--", ...argv];
    // A task environment: its root filesystem instead of the host's `/` (rootfs-mounts.ts).
    const host = hostProgram(argv);
    const mounts = [...rootfsMounts(policy, rootfs), ...host.mounts];
    return [
      systemProgram("bwrap"),
      ...mounts,
      ...closingArgs(policy, rootfsCwd(policy, rootfs, cwd)),
      "--",
      ...host.argv,
    ];
  };
}

/**
 * The sandbox starts the command helper with this very `node` (process.execPath). A Node
 * installed under /tmp (a CI's unpacked binary, a test's copy) or in a hidden folder would be
 * missing inside, and every command would fail to start: that one file goes back in, read-only,
 * at its real path and at the path it is called by (a symlink, say). Nothing else of its folder.
 */
function programMounts(program: string, masked: string[]): string[] {
  if (!isAbsolute(program)) return [];
  const real = realOrMissing(program);
  if (real === undefined || kindOf(real) !== "file") return [];
  const hiddenBy = (file: string) => masked.some((folder) => isInside(file, folder));
  return unique([real, program])
    .filter(hiddenBy)
    .flatMap((target) => ["--ro-bind", real, target]);
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}

function realOrMissing(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

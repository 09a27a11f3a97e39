// macOS: sandbox-exec with a Seatbelt profile equivalent to the bwrap rules, as far as
// Seatbelt allows: writes only to the workspace, the temp folders and a few devices; the
// hidden paths unreadable; host sockets unreachable; protected names unwritable; no network
// unless allowed. Differences from Linux: /tmp is the shared system one (Seatbelt cannot give a
// private one), and background processes are not confined to the command's lifetime by a PID
// namespace (the process-group kill still applies). Seatbelt matches real paths (/var is
// /private/var), so every path in the profile is resolved first.
// Not tested in CI (Linux only): the tests check the profile's text and run its path patterns;
// try it with `harness --approve all -p "touch ~/x"`.
import path from "node:path";
import type { WrapCommand } from "../core/tool.ts";
import { realOrSame } from "../shared/real-path.ts";
import { findProtectedEntries, GIT_CODE_PARTS } from "./protected-entries.ts";
import type { SandboxPolicy } from "./sandbox-policy.ts";
import { worktreeMetadataFiles } from "./worktree-metadata-mounts.ts";

/** Folders every macOS command may write besides the workspace: the temp folders and the caches of per-user temp space. */
const MACOS_WRITABLE = ["/private/tmp", "/private/var/folders"];
/** Devices commands legitimately write to. */
const MACOS_WRITABLE_DEVICES = ["/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper"];
/** launchd's per-user sockets (ssh-agent's SSH_AUTH_SOCK among them) live in the shared /private/tmp. */
const LAUNCHD_SOCKETS = String.raw`^/private/tmp/com\.apple\.launchd\.[^/]+/`;
/** The one host socket name resolution needs; re-allowed after the socket folders are denied, so DNS works with the network allowed. */
const NAME_RESOLVER_SOCKET = "/private/var/run/mDNSResponder";

/** The Seatbelt (SBPL) profile for a policy. Reads the file system (protected entries), so build it when the command starts. */
export function macosProfile(policy: SandboxPolicy): string {
  const lines = [
    "(version 1)",
    "(allow default)",
    // Kernel settings (`sysctl -w`, the host name): as root, `(allow default)` would let a command
    // set them, as a writable /proc/sys would on Linux (kernel-files.ts).
    "(deny sysctl-write)",
    "(deny file-write*)",
    `(allow file-write* ${[policy.workspace, ...(policy.worktreeGit?.writable ?? []), ...MACOS_WRITABLE].map((folder) => `(subpath ${quote(folder)})`).join(" ")} ${MACOS_WRITABLE_DEVICES.map((device) => `(literal ${quote(device)})`).join(" ")} (regex #"^/dev/fd/[0-9]+$") (regex #"^/dev/ttys[0-9]+$"))`,
  ];
  // A session worktree's git files that point git elsewhere (sandbox/worktree-git-mounts.ts).
  const worktreeReadOnly = policy.worktreeGit?.readOnly.map((file) => `(literal ${quote(file)})`) ?? [];
  if (worktreeReadOnly.length > 0) lines.push(`(deny file-write* ${worktreeReadOnly.join(" ")})`);
  // Plan mode: the later rule wins, so a workspace inside a temp folder is read-only too.
  if (policy.readOnlyWorkspace) lines.push(`(deny file-write* (subpath ${quote(policy.workspace)}))`);
  // Never an empty filter list: a rule without filters matches everything.
  const protectedPaths = protectedFilters(policy);
  if (protectedPaths.length > 0) lines.push(`(deny file-write* ${protectedPaths.join(" ")})`);
  // A path pattern names a missing file too, so the folders they live in need no guarding here.
  const homeCode = policy.homeCode?.files.map((file) => `(subpath ${quote(realOrSame(file))})`) ?? [];
  if (homeCode.length > 0) lines.push(`(deny file-write* ${homeCode.join(" ")})`);
  if (policy.hidden.length > 0) {
    const hidden = policy.hidden.map((target) => `(subpath ${quote(target)})`).join(" ");
    lines.push(`(deny file-read* file-write* ${hidden})`);
  }
  if (!policy.network) lines.push("(deny network*)", "(allow network* (local unix-socket) (remote unix-socket))");
  // A read-only folder does not stop connect() on a socket in it: Seatbelt checks that as
  // network-outbound. After the lines above, since the later of two matching rules wins.
  const socketPlaces = [...new Set([...policy.socketFolders, ...policy.hidden].map(realOrSame))];
  lines.push(
    `(deny network-outbound ${socketPlaces.map((folder) => `(subpath ${quote(folder)})`).join(" ")} (regex #"${LAUNCHD_SOCKETS}"))`,
  );
  if (policy.network) lines.push(`(allow network-outbound (literal ${quote(NAME_RESOLVER_SOCKET)}))`);
  return `${lines.join("\n")}\n`;
}

/**
 * What a command may not write, as SBPL filters: `.harness` and `.mcp.json` at any depth, whether
 * they exist or not (a pattern can name what is not there yet, which a Linux mount cannot); the
 * workspace's `.git` entry itself (no creating, renaming or removing it) and the parts of it that
 * make git run code; and those parts of every `.git` folder already nested in the workspace, with
 * its existing linked worktrees' folders and redirecting files (worktree-metadata-mounts.ts). A
 * new nested `.git` stays writable, as on Linux, so `git clone` into the workspace works.
 */
function protectedFilters(policy: SandboxPolicy): string[] {
  const root = policy.workspace;
  const gitParts = `(${GIT_CODE_PARTS.map(regexEscape).join("|")})(/.*)?$`;
  const filters: string[] = [];
  for (const name of policy.protectedNames) {
    if (name === ".git") continue;
    filters.push(pattern(`^${regexEscape(root)}/(.*/)?${regexEscape(name)}(/.*)?$`));
  }
  if (policy.protectedNames.includes(".git")) {
    filters.push(pattern(`^${regexEscape(root)}/\\.git$`), pattern(`^${regexEscape(root)}/\\.git/${gitParts}`));
    for (const nested of findProtectedEntries(root, [".git"])) {
      if (path.dirname(nested) !== root) filters.push(pattern(`^${regexEscape(nested)}/${gitParts}`));
      // Existing linked worktrees' folders (no renaming them) and the files that redirect their git.
      filters.push(...worktreeMetadataFiles(nested).map((file) => `(literal ${quote(file)})`));
    }
  }
  return filters;
}

/** Wraps commands in sandbox-exec with this policy; the profile is built per command (it looks at the workspace). */
export function sandboxExecWrapper(policy: SandboxPolicy): WrapCommand {
  return (argv) => ["/usr/bin/sandbox-exec", "-p", macosProfile(policy), ...argv];
}

/** An SBPL string literal. */
function quote(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** An SBPL regex literal; a `"` (in a path) would end it, so it is matched as any character: a deny rule only widens. */
function pattern(regex: string): string {
  return `(regex #"${regex.replace(/"/g, ".")}")`;
}

/** `text` matched literally in a (POSIX extended) regular expression. */
function regexEscape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

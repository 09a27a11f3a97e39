import type { WorktreeGitMounts } from "./worktree-git-mounts.ts";

/**
 * What a sandboxed command may touch, as data; bwrap.ts and macos-profile.ts each turn it into
 * their own terms. Paths are absolute real paths.
 */
export interface SandboxPolicy {
  /** The only folder (besides a private temp folder) commands may write. */
  workspace: string;
  /**
   * The workspace read-only too (plan mode, permissions/plan-mode.ts): commands write nothing of
   * the host's, only their private /tmp (Linux; macOS: the temp folders), which the next mode's
   * sandbox does not keep.
   */
  readOnlyWorkspace?: boolean;
  /** Folders and files hidden from commands (credentials, harness's own state). */
  hidden: string[];
  /**
   * Host folders where services keep their unix sockets (`/run`, `$XDG_RUNTIME_DIR`): replaced
   * by empty folders, since a read-only bind does not stop `connect()` on a socket.
   */
  socketFolders: string[];
  /**
   * Names that make a later run, or git, execute code outside the sandbox (`.harness`,
   * `.mcp.json`, `.git`): read-only wherever they are in the workspace, and kept from being
   * created at its root.
   */
  protectedNames: string[];
  /**
   * Set when the workspace holds the home folder: its files that run code at the next login,
   * shell or git command (`files`, read-only), and the folders they live in (`guardedFolders`,
   * where no entry may be added). See permissions/home-code-paths.ts.
   */
  homeCode?: { home: string; files: string[]; guardedFolders: string[] };
  /**
   * Set when the workspace is a session worktree (`harness -w`): the main repository's git
   * folders its commits need, writable, and the worktree's pointer files read-only
   * (worktree-git-mounts.ts).
   */
  worktreeGit?: WorktreeGitMounts;
  /** Where placeholders made for missing protected names are written down (placeholder-records.ts). */
  placeholderRecords?: string;
  /** Whether commands may reach the whole network (loopback included). */
  network: boolean;
  /**
   * With `network` false: the session's proxy, the only way out of the sandbox's network
   * namespace (network-proxy.ts), and the ports of loopback grants (`localhost:5432`), which
   * listen inside as they do outside. Set (and changed, on folder trust or an answer) by
   * permissions/sandbox-network.ts; bwrap.ts reads it at each command's start. `token` starts
   * each relayed connection (relay-origin.ts): the proxy takes no other.
   */
  networkProxy?: { socket: string; loopbackPorts: number[]; token: string };
  /** A task environment's root filesystem: commands see it as `/` instead of the host's (Linux only; rootfs-mounts.ts). */
  rootfs?: RootFilesystem;
}

/** A root filesystem folder (`dir`) and where the workspace appears in it (`workspaceAt`, e.g. `/testbed`). */
export interface RootFilesystem {
  dir: string;
  workspaceAt: string;
}

/** Where commands find the proxy inside the sandbox: the relay's port, and the proxy's socket it relays to. */
export const PROXY_PORT = 3128;
export const PROXY_SOCKET_INSIDE = "/tmp/.harness-network.sock";
/** The command helper's variable that says what to relay (tools/commands/command-helper.ts reads it). */
export const RELAY_VARIABLE = "HARNESS_NETWORK_RELAY";

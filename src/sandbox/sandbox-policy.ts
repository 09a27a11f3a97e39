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
  /** Where placeholders made for missing protected names are written down (placeholder-records.ts). */
  placeholderRecords?: string;
  /** Whether commands may reach the network (loopback included). */
  network: boolean;
}

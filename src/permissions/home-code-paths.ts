// Files in the home folder that run code the next time the user logs in, opens a shell, starts
// a desktop session, runs git or an editor: a command or file tool that writes one runs code
// outside the sandbox later. They matter only when the workspace holds the home folder (harness
// started in ~ or /, an explicit choice: run-cli's --allow-home); elsewhere the sandbox keeps
// everything outside the workspace read-only already. One list for the sandbox (read-only, and
// not creatable: sandbox/home-code-mounts.ts) and the file tools (edits refused: policy.ts).
import path from "node:path";

/** Home-relative paths that run code (a folder: everything in it). */
const HOME_CODE_PATHS = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".bash_aliases",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".zlogout",
  ".cshrc",
  ".tcshrc",
  ".kshrc",
  ".xprofile",
  ".xinitrc",
  ".xsession",
  ".xsessionrc",
  ".pam_environment",
  ".gitconfig",
  ".vimrc",
  ".emacs",
  ".emacs.d",
  ".ssh/rc",
  ".ssh/authorized_keys",
  ".cargo/config.toml",
  ".config/autostart",
  ".config/systemd",
  ".config/environment.d",
  ".config/fish",
  ".config/git",
  ".config/nvim",
  ".local/bin",
  ".local/share/systemd",
];

/**
 * Home-relative folders whose own entries a command must not add to, since a new one may be one
 * of the paths above (a missing `~/.bash_profile`, `~/.config/autostart`): read-only themselves,
 * their other entries writable as before.
 */
const HOME_GUARDED_FOLDERS = ["", ".config", ".local", ".local/share", ".ssh", ".cargo"];

/** The paths above for this home folder. */
export function homeCodePaths(home: string): { files: string[]; guardedFolders: string[] } {
  return {
    files: HOME_CODE_PATHS.map((name) => path.join(home, name)),
    guardedFolders: HOME_GUARDED_FOLDERS.map((name) => path.join(home, name)),
  };
}

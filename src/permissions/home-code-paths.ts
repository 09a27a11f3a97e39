// Files in the home folder that run code the next time the user logs in, opens a shell, starts
// a desktop session, or runs python, git, a debugger or an editor: a command or file tool that
// writes one runs code outside the sandbox later. They matter only when the workspace holds the home folder (harness
// started in ~ or /, an explicit choice: run-cli's --allow-home); elsewhere the sandbox keeps
// everything outside the workspace read-only already. One list for the sandbox (read-only, and
// not creatable: sandbox/home-code-mounts.ts) and the file tools (edits refused: policy.ts).
import path from "node:path";

/**
 * Home-relative paths that run code (a folder: everything in it), by what runs them. Drawn from
 * each program's own documentation of what it reads at start-up, so the class is closed by
 * program rather than by file:
 * - login and shells: bash(1) INVOCATION, zsh(1) STARTUP/SHUTDOWN FILES, csh/tcsh/ksh, fish's
 *   ~/.config/fish, X sessions (xinit, Xsession), pam_env;
 * - desktop sessions: the XDG autostart specification (~/.config/autostart), desktop entries
 *   (~/.local/share/applications: a launcher or a MIME handler names the command it runs),
 *   systemd.unit(5) user units and environment.d(5), KDE's plasma-workspace env and shutdown
 *   scripts, window managers whose configuration runs programs (i3, sway, Hyprland, openbox);
 * - interpreters at start: Python's site module runs `import` lines of every `.pth` file and
 *   `usercustomize` in the user site-packages (~/.local/lib/python3.X/site-packages), IPython's
 *   startup folder, Julia's startup.jl, R's .Rprofile, irb/pry, ghci, psql's and sqlite's rc
 *   files (`\!`, `.shell`), Bun's bunfig.toml preload;
 * - tools run in passing: git (config and its hooks path), direnv (direnvrc, direnv.toml),
 *   gdb and lldb init files, tmux and screen (`run-shell`, `exec`), mailcap (the command a
 *   MIME type opens with), pip's configuration (its index decides what code installs),
 *   cargo's configuration, ssh's rc and authorized_keys;
 * - editors: vim (vimrc, ~/.vim plugins), Neovim, Emacs, VS Code's extensions (~/.vscode).
 * Outside this list a program run from the home folder may still read a file that runs code
 * (a shell framework under another name): the README's threat model says so.
 */
const HOME_CODE_PATHS = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".bash_aliases",
  ".bashrc.d",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".zlogout",
  ".config/zsh",
  ".cshrc",
  ".tcshrc",
  ".login",
  ".logout",
  ".kshrc",
  ".mkshrc",
  ".config/fish",
  ".xprofile",
  ".xinitrc",
  ".xsession",
  ".xsessionrc",
  ".xserverrc",
  ".pam_environment",
  ".config/autostart",
  ".config/systemd",
  ".config/environment.d",
  ".config/plasma-workspace",
  ".config/i3",
  ".config/sway",
  ".config/hypr",
  ".config/openbox",
  ".local/share/applications",
  ".local/share/systemd",
  ".local/bin",
  ".local/lib",
  ".ipython",
  ".julia/config",
  ".Rprofile",
  ".irbrc",
  ".pryrc",
  ".ghci",
  ".psqlrc",
  ".sqliterc",
  ".bunfig.toml",
  ".gitconfig",
  ".config/git",
  ".direnvrc",
  ".config/direnv",
  ".gdbinit",
  ".config/gdb",
  ".lldbinit",
  ".tmux.conf",
  ".config/tmux",
  ".screenrc",
  ".mailcap",
  ".pip",
  ".config/pip",
  ".cargo/config.toml",
  ".cargo/config",
  ".ssh/rc",
  ".ssh/authorized_keys",
  ".vimrc",
  ".gvimrc",
  ".exrc",
  ".vim",
  ".config/nvim",
  ".emacs",
  ".emacs.el",
  ".emacs.d",
  ".config/emacs",
  ".vscode",
];

/**
 * Home-relative folders whose own entries a command must not add to, since a new one may be one
 * of the paths above (a missing `~/.bash_profile`, `~/.config/autostart`): read-only themselves,
 * their other entries writable as before.
 */
const HOME_GUARDED_FOLDERS = ["", ".config", ".local", ".local/share", ".ssh", ".cargo", ".julia"];

/** The paths above for this home folder. */
export function homeCodePaths(home: string): { files: string[]; guardedFolders: string[] } {
  return {
    files: HOME_CODE_PATHS.map((name) => path.join(home, name)),
    guardedFolders: HOME_GUARDED_FOLDERS.map((name) => path.join(home, name)),
  };
}

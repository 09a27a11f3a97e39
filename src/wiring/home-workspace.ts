// Which folders may be a workspace: the one judgement every mode uses, for the CLI's folder
// (one-shot, chat, -y), an editor's session/new (ACP), a tasks file's cwd and repo (batch) and a
// queued job's (worker, which also keeps to the folders it was told to allow: batch/worker-policy.ts).
//
// The sandbox makes the workspace writable and shows what it hides (credentials, the state
// folder) when the workspace is inside it, and the file tools' edits are allowed there. So:
// - Never a workspace, in any mode and with no flag: a folder inside harness's state folder
//   ($HARNESS_HOME) or the folder of another user settings file harness reads (Claude Code's
//   ~/.claude): a command there plants settings.json hooks that run outside the sandbox at the
//   next start; inside a credential folder (permissions/secret-paths.ts: ~/.ssh, ~/.aws, …);
//   inside a protected entry (permissions/protected-paths.ts: a `.git`, `.harness`, `.claude`).
// - An explicit choice: a folder that holds the home folder (harness started in ~, /home or /)
//   puts every project and dotfile within reach, and one inside a hidden folder of home
//   (~/.dotfiles, ~/.config/nvim) is where programs keep their settings and state. The CLI takes
//   --allow-home or a "yes" at the terminal, an editor --allow-home in harness acp's args; a batch
//   or a worker never runs a task there (the folder is chosen by a file or by whoever can write to
//   the queue, not by the user at the terminal). Even with the choice, dotfiles that run code stay
//   read-only (permissions/home-code-paths.ts) and credentials hidden (permissions/secret-paths.ts).
//
// Decision (issue 51): a project kept in a hidden folder of home (a dotfiles repository,
// ~/.config/nvim as a git repository) is worked on with --allow-home, the flag that already means
// "I know this folder holds my home's own files"; a second flag would say the same. A credential
// folder, the state folder and a protected entry are refused outright: the sandbox exists to keep
// commands out of exactly these, and no project lives there.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { PROTECTED_NAMES } from "../permissions/protected-paths.ts";
import { secretPaths } from "../permissions/secret-paths.ts";
import { settingsSources } from "../settings/settings-file.ts";
import { isInside } from "../shared/is-inside.ts";
import { realOrSame } from "../shared/real-path.ts";
import { stateDir } from "./defaults.ts";

/** The flag that makes the choice on the command line. */
const ALLOW_HOME_FLAG = "--allow-home";

/**
 * What may become of a folder as a workspace: `ok` (its real path), `choice` (only with
 * --allow-home or a yes at the terminal; never for a batch or a worker), `refused` (never).
 * `why` completes a sentence that starts with the folder.
 */
type WorkspaceVerdict =
  | { kind: "ok"; folder: string }
  | { kind: "choice"; folder: string; why: string }
  | { kind: "refused"; folder: string; why: string };

/** The judgement: what `folder` (absolute, or taken from the current folder) may be as a workspace. */
export function judgeWorkspace(folder: string, env: NodeJS.ProcessEnv): WorkspaceVerdict {
  const real = realOfNearest(path.resolve(folder));
  const homes = [...new Set([env.HOME || homedir(), homedir()].map((home) => realOrSame(path.resolve(home))))];
  const state = [
    stateDir(env),
    ...settingsSources(real, stateDir(env), env).user.map((file) => path.dirname(file.path)),
  ];
  const refused = (why: string): WorkspaceVerdict => ({ kind: "refused", folder: real, why });
  for (const dir of state.map((dir) => realOrSame(path.resolve(dir))))
    if (isInside(real, dir))
      return refused(
        `is inside ${dir}, harness's state and settings: a command there could plant settings that run outside the sandbox`,
      );
  for (const secret of homes.flatMap((home) => secretPaths(home, stateDir(env), env)).map(realOrSame))
    if (isInside(real, secret)) return refused(`is inside ${secret}, where credentials live`);
  const parts = real.split(path.sep);
  const protectedAt = parts.findIndex((part) => PROTECTED_NAMES.includes(part));
  if (protectedAt !== -1)
    return refused(
      `is inside ${parts.slice(0, protectedAt + 1).join(path.sep)}, which holds what git or harness runs outside the sandbox`,
    );
  const choice = (why: string): WorkspaceVerdict => ({ kind: "choice", folder: real, why });
  if (homes.some((home) => isInside(home, real)))
    return choice("holds your home folder: commands and edits would reach every project and file in it");
  for (const home of homes) {
    if (!isInside(real, home)) continue;
    const top = path.relative(home, real).split(path.sep)[0];
    if (top.startsWith("."))
      return choice(
        `is inside ${path.join(home, top)}, a hidden folder of your home where programs keep their settings and state`,
      );
  }
  return { kind: "ok", folder: real };
}

/**
 * The real path of `folder`, or for one that does not exist yet (a --workdir to be made), its
 * nearest existing parent's real path with the rest: a symlink on the way is followed as mkdir will.
 */
function realOfNearest(folder: string): string {
  const real = realOrSame(folder);
  if (real !== folder || existsSync(folder)) return real;
  const parent = path.dirname(folder);
  return parent === folder ? folder : path.join(realOfNearest(parent), path.basename(folder));
}

/**
 * Why `folder` may not be an editor's or a library's workspace, or undefined when it may;
 * `flagPlace` says where --allow-home goes (" to harness acp's args").
 */
export function workspaceRefusal(
  folder: string,
  env: NodeJS.ProcessEnv,
  allowHome: boolean,
  flagPlace = "",
): string | undefined {
  const verdict = judgeWorkspace(folder, env);
  if (verdict.kind === "ok" || (verdict.kind === "choice" && allowHome)) return undefined;
  return verdict.kind === "refused"
    ? `${verdict.folder} ${verdict.why}; harness does not work there`
    : `${verdict.folder} ${verdict.why}; open a project folder, or add ${ALLOW_HOME_FLAG}${flagPlace} to work there anyway`;
}

/**
 * A task's folder (a batch's tasks file, a queued job) as the batch layer takes it: its real path,
 * or why no task runs there. Both `refused` and `choice` are refused: the folder was chosen by a
 * file or a queue, not by the user at the terminal.
 */
export function taskFolder(folder: string, env: NodeJS.ProcessEnv): { folder: string } | { refused: string } {
  const verdict = judgeWorkspace(folder, env);
  return verdict.kind === "ok"
    ? { folder: verdict.folder }
    : { refused: `${folder === verdict.folder ? folder : `${folder} (${verdict.folder})`} ${verdict.why}` };
}

/**
 * Settles the CLI's folder: `undefined` to go on, or the exit code (2). A refused folder stops
 * the run; one that needs the choice takes --allow-home, or a yes from `ask` (a terminal).
 */
export async function settleHomeWorkspace(options: {
  cwd: string;
  env: NodeJS.ProcessEnv;
  allowed: boolean;
  ask?: (question: string) => Promise<string | undefined>;
  write: (text: string) => void;
}): Promise<number | undefined> {
  const verdict = judgeWorkspace(options.cwd, options.env);
  if (verdict.kind === "ok" || (verdict.kind === "choice" && options.allowed)) return undefined;
  const what = `${options.cwd} ${verdict.why}`;
  if (verdict.kind === "refused") {
    options.write(`harness: ${what}; harness does not work there (start it in a project folder, or --cwd <dir>).\n`);
    return 2;
  }
  if (!options.ask) {
    options.write(
      `harness: ${what}. Start harness in a project folder (or --cwd <dir>), or pass ${ALLOW_HOME_FLAG} to work here anyway.\n`,
    );
    return 2;
  }
  const answer = await options.ask(`harness: ${what} (your dotfiles stay read-only). Work here anyway? [y/N] `);
  if (/^\s*y(es)?\s*$/i.test(answer ?? "")) return undefined;
  options.write(`harness: not started. Start harness in a project folder, or pass ${ALLOW_HOME_FLAG}.\n`);
  return 2;
}

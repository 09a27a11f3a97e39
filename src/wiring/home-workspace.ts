// A workspace that holds the home folder (harness started in ~, /home or /) puts every project,
// dotfile and key of the user within reach of commands and edits. That needs an explicit choice:
// --allow-home, or a "yes" at the terminal; a headless run without the flag stops with exit 2.
// Even then, the files that run code at the next login or git command stay read-only
// (permissions/home-code-paths.ts) and credentials stay hidden (permissions/secret-paths.ts).
import { homedir } from "node:os";
import { isInside } from "../shared/is-inside.ts";
import { realOrSame } from "../shared/real-path.ts";

/** The flag that makes the choice on the command line. */
export const ALLOW_HOME_FLAG = "--allow-home";

/** Whether `cwd` holds the home folder of `env` (is it, or one of its parents). */
export function holdsHome(cwd: string, env: NodeJS.ProcessEnv): boolean {
  return isInside(realOrSame(env.HOME || homedir()), realOrSame(cwd));
}

/**
 * Settles a workspace that holds the home folder: `undefined` to go on, or the exit code.
 * `ask` (a terminal) gets a yes/no question; without it, the flag is the only way.
 */
export async function settleHomeWorkspace(options: {
  cwd: string;
  env: NodeJS.ProcessEnv;
  allowed: boolean;
  ask?: (question: string) => Promise<string | undefined>;
  write: (text: string) => void;
}): Promise<number | undefined> {
  if (options.allowed || !holdsHome(options.cwd, options.env)) return undefined;
  const what = `${options.cwd} holds your home folder: commands and edits would reach every project and file in it`;
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

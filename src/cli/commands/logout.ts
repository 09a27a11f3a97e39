// `harness logout [name]`: forgets one sign-in, or all of them (docs/sign-in.md).
import { parseArgs } from "node:util";
import {
  readCredentials,
  SignInError,
  withCredentialLock,
  writeCredential,
} from "../../providers/sign-in/credential-store.ts";
import { isSignInName, SIGN_IN_NAMES } from "../../providers/sign-in/sign-in-headers.ts";
import { showControlChars } from "../../shared/control-chars.ts";
import { stateDir } from "../../wiring/defaults.ts";

const HELP = `Usage: harness logout [chatgpt|copilot]

Removes a sign-in's tokens from $HARNESS_HOME/credentials.json; with no name, every sign-in's.
The tokens stay valid at the service until they expire or you revoke the app there
(chatgpt.com settings, github.com/settings/applications).
`;

export async function run(argv: string[]): Promise<number> {
  let positionals: string[];
  try {
    const parsed = parseArgs({
      args: argv,
      options: { help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: true,
    });
    if (parsed.values.help) {
      process.stdout.write(HELP);
      return 0;
    }
    positionals = parsed.positionals;
  } catch (error) {
    process.stderr.write(`harness logout: ${showControlChars((error as Error).message)}\n`);
    return 2;
  }
  if (positionals.length > 1 || (positionals[0] !== undefined && !isSignInName(positionals[0]))) {
    process.stderr.write(`harness logout: name one of ${SIGN_IN_NAMES.join(", ")}, or none for all\n`);
    return 2;
  }
  const home = stateDir(process.env);
  try {
    const removed = await withCredentialLock(home, async () => {
      const present = Object.keys(readCredentials(home).signIns);
      const names = positionals[0] ? present.filter((name) => name === positionals[0]) : present;
      for (const name of names) writeCredential(home, name, undefined);
      return names;
    });
    process.stdout.write(
      removed.length > 0
        ? `signed out of ${removed.join(" and ")}\n`
        : `not signed in to ${positionals[0] ?? "anything"}\n`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof SignInError)) throw error;
    process.stderr.write(`harness logout: ${showControlChars(error.message)}\n`);
    return 1;
  }
}

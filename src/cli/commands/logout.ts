// `harness logout [name]`: forgets one sign-in, or all of them (docs/sign-in.md).
import { parseArgs } from "node:util";
import { revokeChatGpt } from "../../providers/sign-in/chatgpt-sign-in.ts";
import {
  type Credential,
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
ChatGPT: the refresh token is also revoked at OpenAI (as codex logout does).
Copilot: GitHub lets only the app's owner revoke its tokens; revoke harness yourself at
https://github.com/settings/applications.
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
      const signIns = readCredentials(home).signIns;
      const names = Object.keys(signIns).filter((name) => !positionals[0] || name === positionals[0]);
      for (const name of names) writeCredential(home, name, undefined);
      return names.map((name) => signIns[name]).filter((credential) => credential !== undefined);
    });
    // Revoked after the local removal and outside the lock: a slow or failing service never keeps
    // the tokens on disk nor blocks another harness process.
    for (const credential of removed) await revokeAtService(credential);
    process.stdout.write(
      removed.length > 0
        ? `signed out of ${removed.map((credential) => credential.kind).join(" and ")}\n`
        : `not signed in to ${positionals[0] ?? "anything"}\n`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof SignInError)) throw error;
    process.stderr.write(`harness logout: ${showControlChars(error.message)}\n`);
    return 1;
  }
}

/**
 * What logout can undo at the service. ChatGPT: OpenAI's revocation endpoint (`revokeChatGpt`); a
 * failure is one line, the local tokens being gone already. Copilot: *decision*, nothing is sent:
 * GitHub revokes an OAuth app's token only through `DELETE /applications/{client_id}/token`, which
 * authenticates with the app's client secret (docs.github.com/rest/apps/oauth-applications, "Delete
 * an app token"), and a device-flow public client has none; the user is told where to do it.
 */
async function revokeAtService(credential: Credential): Promise<void> {
  switch (credential.kind) {
    case "chatgpt":
      try {
        await revokeChatGpt(credential);
      } catch (error) {
        if (!(error instanceof SignInError)) throw error;
        process.stderr.write(
          `harness logout: ${showControlChars(error.message)}; the tokens were removed here, revoke harness at chatgpt.com's settings if needed\n`,
        );
      }
      return;
    case "copilot":
      process.stderr.write(
        "harness logout: GitHub keeps the copilot sign-in's token valid until you revoke harness at https://github.com/settings/applications\n",
      );
      return;
  }
}

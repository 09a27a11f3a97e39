// `harness auth`: who is signed in, to what, until when (docs/sign-in.md). Never a token.
import { parseArgs } from "node:util";
import {
  type Credential,
  credentialFile,
  readCredentials,
  SignInError,
} from "../../providers/sign-in/credential-store.ts";
import { signInsHere } from "../../providers/sign-in/sign-in-headers.ts";
import { showControlChars } from "../../shared/control-chars.ts";
import { stateDir } from "../../wiring/defaults.ts";

const HELP = `Usage: harness auth

Shows the sign-ins (harness login): the account, the plan and until when its current token runs
(harness renews it by itself before then). Prints no token.
`;

export async function run(argv: string[]): Promise<number> {
  try {
    const { values } = parseArgs({ args: argv, options: { help: { type: "boolean", short: "h" } }, strict: true });
    if (values.help) {
      process.stdout.write(HELP);
      return 0;
    }
  } catch (error) {
    process.stderr.write(`harness auth: ${showControlChars((error as Error).message)}\n`);
    return 2;
  }
  const home = stateDir(process.env);
  try {
    const entries = Object.entries(readCredentials(home).signIns).filter(
      (entry): entry is [string, Credential] => entry[1] !== undefined,
    );
    // A Copilot sign-in carried in HARNESS_COPILOT_GITHUB_TOKEN (used where none is stored): where from, never the token.
    const carried = signInsHere(home).find((plan) => plan.name === "copilot" && plan.from.startsWith("$"));
    if (carried)
      process.stdout.write(
        `copilot: carried in ${carried.from} (GitHub Copilot, api.githubcopilot.com), Copilot tokens made from it per run, in memory\n`,
      );
    if (entries.length === 0 && !carried) {
      process.stdout.write("not signed in to anything: harness login chatgpt, or harness login copilot\n");
      return 0;
    }
    if (entries.length === 0) return 0;
    for (const [name, credential] of entries)
      process.stdout.write(`${showControlChars(describeSignIn(name, credential))}\n`);
    process.stdout.write(`(kept in ${credentialFile(home)})\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof SignInError)) throw error;
    process.stderr.write(`harness auth: ${showControlChars(error.message)}\n`);
    return 1;
  }
}

/** One line: provider, account, plan, until when. */
export function describeSignIn(name: string, credential: Credential): string {
  if (credential.kind === "chatgpt") {
    const who = credential.email ?? `account ${credential.accountId}`;
    const plan = credential.plan ? `, ${credential.plan} plan` : "";
    return `${name}: ${who}${plan} (ChatGPT, chatgpt.com), token until ${when(credential.expiresAt)}, renewed by itself`;
  }
  const who = credential.login ?? "a GitHub account";
  const plan = credential.sku ? `, ${credential.sku}` : "";
  const until = credential.copilotExpiresAt
    ? `Copilot token until ${when(credential.copilotExpiresAt)}`
    : "no Copilot token yet";
  return `${name}: ${who}${plan} (GitHub Copilot, api.githubcopilot.com), ${until}, renewed by itself`;
}

function when(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

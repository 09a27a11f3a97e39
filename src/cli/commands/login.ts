// `harness login chatgpt|copilot`: sign in with a plan the user already has (docs/sign-in.md).
// ChatGPT: the browser (OAuth code + PKCE with a one-shot callback on 127.0.0.1) or, with
// `--device`, a code typed in on another machine; Copilot: GitHub's device flow and the exchange
// for a Copilot token. The tokens go to the credential store ($HARNESS_HOME/credentials.json, 0600)
// and nowhere else: nothing is printed of them, and no environment variable carries them.
import { spawn } from "node:child_process";
import { parseArgs } from "node:util";
import { authoriseUrl, deviceSignIn, exchangeCode, newAuthorisation } from "../../providers/sign-in/chatgpt-sign-in.ts";
import { exchangeCopilotToken, githubDeviceFlow, githubLogin } from "../../providers/sign-in/copilot-sign-in.ts";
import {
  type Credential,
  credentialFile,
  SignInError,
  withCredentialLock,
  writeCredential,
} from "../../providers/sign-in/credential-store.ts";
import { startLoopbackCallback } from "../../providers/sign-in/loopback-callback.ts";
import { callbackPort } from "../../providers/sign-in/sign-in-endpoints.ts";
import { isSignInName, SIGN_IN_NAMES } from "../../providers/sign-in/sign-in-headers.ts";
import { showControlChars } from "../../shared/control-chars.ts";
import { stateDir } from "../../wiring/defaults.ts";
import { describeSignIn } from "./auth.ts";

const HELP = `Usage: harness login chatgpt [--device] [--no-browser] [--timeout <seconds>]
       harness login copilot

Signs in with a plan you already have, instead of an API key; then use --provider chatgpt or
--provider copilot. The tokens are kept in $HARNESS_HOME/credentials.json, readable only by you.

  chatgpt     your ChatGPT plan, as Codex CLI signs in: a page opens in your browser and comes
              back to harness on http://localhost:1455
  copilot     your GitHub Copilot plan: enter a code at github.com/login/device
  --device    (chatgpt) sign in on another device with a code, for SSH and containers
  --no-browser  print the page to open instead of opening it
  --timeout   how long to wait for the browser or the device code, in seconds (default 300)

harness auth shows who is signed in; harness logout [name] signs out. Anthropic's claude.ai
plans are not offered: Anthropic does not allow their use in other tools (docs/sign-in.md).
`;

const OPTIONS = {
  device: { type: "boolean" },
  "no-browser": { type: "boolean" },
  timeout: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    process.stderr.write(`harness login: ${showControlChars((error as Error).message)}\nTry 'harness login --help'.\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const name = positionals[0] ?? "";
  if (positionals.length !== 1 || !isSignInName(name)) {
    const claude = /^(claude|anthropic)/i.test(name)
      ? " (Anthropic does not allow claude.ai plans in other tools: use ANTHROPIC_API_KEY)"
      : "";
    process.stderr.write(
      `harness login: name one of ${SIGN_IN_NAMES.join(", ")}${claude}\nTry 'harness login --help'.\n`,
    );
    return 2;
  }
  const timeout = values.timeout === undefined ? 300 : Number(values.timeout);
  if (!(timeout > 0 && timeout <= 3600)) {
    process.stderr.write("harness login: --timeout takes seconds, from 1 to 3600\n");
    return 2;
  }
  if (values.device && name !== "chatgpt") {
    process.stderr.write("harness login: --device is for chatgpt; copilot always signs in with a code\n");
    return 2;
  }
  const home = stateDir(process.env);
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once("SIGINT", stop);
  const say = (line: string) => process.stderr.write(`${line}\n`);
  try {
    const credential =
      name === "copilot"
        ? await copilotSignIn(say, abort.signal)
        : values.device
          ? await deviceSignIn(say, { timeoutMs: timeout * 1000, signal: abort.signal })
          : await browserSignIn(say, { timeoutMs: timeout * 1000, signal: abort.signal, open: !values["no-browser"] });
    await withCredentialLock(home, async () => writeCredential(home, name, credential));
    say(`signed in: ${describeSignIn(name, credential)}`);
    say(`kept in ${credentialFile(home)}; use it with --provider ${name}`);
    return 0;
  } catch (error) {
    if (!(error instanceof SignInError)) throw error;
    say(`harness login: ${showControlChars(error.message)}`);
    return abort.signal.aborted ? 130 : 1;
  } finally {
    process.off("SIGINT", stop);
  }
}

async function browserSignIn(
  say: (line: string) => void,
  options: { timeoutMs: number; signal: AbortSignal; open: boolean },
): Promise<Credential> {
  const authorisation = newAuthorisation();
  const callback = await startLoopbackCallback({
    port: callbackPort(),
    state: authorisation.state,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    onRefused: (line) => say(`harness login: ${line}`),
  });
  const url = authoriseUrl(callback.redirectUri, authorisation);
  say(`Sign in with ChatGPT on this page${options.open ? " (opening your browser)" : ""}:`);
  say(`  ${url}`);
  if (options.open) openBrowser(url);
  try {
    const { code } = await callback.result;
    return await exchangeCode(code, callback.redirectUri, authorisation.verifier);
  } finally {
    callback.close();
  }
}

async function copilotSignIn(say: (line: string) => void, signal: AbortSignal): Promise<Credential> {
  const { githubToken } = await githubDeviceFlow(say, { signal });
  const login = await githubLogin(githubToken);
  return exchangeCopilotToken({ kind: "copilot", githubToken, ...(login ? { login } : {}) });
}

/** The system's way to open a page; nothing happens (the page is printed) when there is none. */
function openBrowser(url: string): void {
  const [program, args] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", "", url]]
        : ["xdg-open", [url]];
  try {
    const child = spawn(program, args as string[], { stdio: "ignore", detached: true });
    child.on("error", () => undefined);
    child.unref();
  } catch {
    // The page is printed above.
  }
}

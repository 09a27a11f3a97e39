// Drives `harness login chatgpt` (the browser sign-in) from a test: the CLI prints the page to
// open; `browserLogin` waits for that line and hands its URL to the test (Chromium, or an attacker).
import type { CliResult } from "../helpers.ts";
import { runCli } from "../helpers.ts";

export interface BrowserLogin {
  /** The authorisation page the CLI printed. */
  url: Promise<string>;
  done: Promise<CliResult>;
}

export function browserLogin(env: NodeJS.ProcessEnv, args: string[] = [], wrap?: string[]): BrowserLogin {
  let found!: (url: string) => void;
  const url = new Promise<string>((resolve) => (found = resolve));
  const done = runCli(["login", "chatgpt", "--no-browser", ...args], {
    env,
    ...(wrap ? { wrap } : {}),
    onSpawn(child) {
      let seen = "";
      child.stderr?.on("data", (chunk) => {
        seen += chunk;
        const match = /(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)/.exec(seen);
        if (match) found(match[1]);
      });
    },
  });
  return { url, done };
}

/** The loopback callback's address and state named in an authorisation page's URL. */
export function callbackOf(authoriseUrl: string): { redirectUri: string; state: string; port: number } {
  const query = new URL(authoriseUrl).searchParams;
  const redirectUri = query.get("redirect_uri") ?? "";
  return { redirectUri, state: query.get("state") ?? "", port: Number(new URL(redirectUri).port) };
}

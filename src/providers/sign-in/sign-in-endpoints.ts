// Where the sign-ins go: the real services' addresses, and the test hooks that move them to fakes.
//
// *Test hooks*, environment variables only, for the tests' fake servers on 127.0.0.1:
//   HARNESS_TEST_CHATGPT_ISSUER   instead of https://auth.openai.com
//   HARNESS_TEST_CHATGPT_API      instead of https://chatgpt.com/backend-api/codex
//   HARNESS_TEST_GITHUB_URL       instead of https://github.com
//   HARNESS_TEST_GITHUB_API       instead of https://api.github.com
//   HARNESS_TEST_COPILOT_API      instead of https://api.githubcopilot.com
//   HARNESS_TEST_CALLBACK_PORT    the browser sign-in's loopback port instead of 1455 (0: any free one)
// *Decision*: a hook is taken only when it names a loopback address (127.0.0.1, ::1, localhost),
// so no setting, variable or file can send a token to another machine; no file is read for them
// (config.json and the settings files have no such entries), so a project cannot redirect a sign-in.
// A hook that names anything else is refused with an error, never silently dropped.
import { SignInError } from "./credential-store.ts";

const REAL = {
  HARNESS_TEST_CHATGPT_ISSUER: "https://auth.openai.com",
  HARNESS_TEST_CHATGPT_API: "https://chatgpt.com/backend-api/codex",
  HARNESS_TEST_GITHUB_URL: "https://github.com",
  HARNESS_TEST_GITHUB_API: "https://api.github.com",
  HARNESS_TEST_COPILOT_API: "https://api.githubcopilot.com",
} as const;

type EndpointName = keyof typeof REAL;

/** The address of one service: the real one, or its test hook when that names a loopback server. */
export function endpoint(name: EndpointName, env: NodeJS.ProcessEnv = process.env): string {
  const hook = env[name];
  if (hook === undefined || hook === "") return REAL[name];
  if (!isLoopbackUrl(hook))
    throw new SignInError(
      `${name} is a test hook and takes only a loopback URL (http://127.0.0.1:port), not "${hook}"`,
    );
  return hook.replace(/\/+$/, "");
}

/** The browser sign-in's callback port: 1455, the one OpenAI's sign-in allows for Codex CLI (codex-rs/login/src/server.rs). */
export function callbackPort(env: NodeJS.ProcessEnv = process.env): number {
  const hook = env.HARNESS_TEST_CALLBACK_PORT;
  if (hook === undefined || hook === "") return 1455;
  const port = Number(hook);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new SignInError(`HARNESS_TEST_CALLBACK_PORT takes a port number, not "${hook}"`);
  return port;
}

function isLoopbackUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return url.protocol === "http:" && ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname);
}

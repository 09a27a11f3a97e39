// `harness serve` as a child process for the tests: started on a free port of 127.0.0.1 with the
// fake LLM behind it, its address and token read from what it prints, stopped at the test's end.
import { spawn } from "node:child_process";
import { ServeClient } from "../../src/server/serve-client.ts";
import type { ServerEvent } from "../../src/server/server-events.ts";
import type { FakeLLM } from "./fake-llm/server.ts";
import { CLI, cleanEnv, fakeFlags, tempDir } from "./helpers.ts";
import { killAtTestEnd } from "./teardown.ts";

/** A bound on the server's start and on waiting for an event: far above either. */
export const SERVE_LIMIT_MS = 60_000;

export interface ServedHarness {
  url: string;
  token: string;
  client: ServeClient;
  env: NodeJS.ProcessEnv;
  stderr: () => string;
  stdout: () => string;
  child: ReturnType<typeof spawn>;
}

/** `harness serve --port 0` against `fake`; `wrap` runs it as another user, `args` adds flags. */
export function startServe(
  fake: FakeLLM,
  options: { env?: NodeJS.ProcessEnv; args?: string[]; wrap?: string[]; cwd?: string } = {},
): Promise<ServedHarness> {
  const env = options.env ?? cleanEnv({ HARNESS_API_KEY: "test-key" });
  const argv = [
    ...(options.wrap ?? []),
    process.execPath,
    CLI,
    "serve",
    "--port",
    "0",
    ...fakeFlags(fake),
    ...(options.args ?? []),
  ];
  const child = killAtTestEnd(
    spawn(argv[0], argv.slice(1), { cwd: options.cwd ?? tempDir(), env, stdio: ["ignore", "pipe", "pipe"] }),
  );
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const limit = setTimeout(() => reject(new Error(`harness serve did not start:\n${stderr}`)), SERVE_LIMIT_MS);
    child.on("close", (code) => {
      clearTimeout(limit);
      reject(new Error(`harness serve exited (${code}):\n${stdout}\n${stderr}`));
    });
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      const url = /listening on (\S+)/.exec(stdout)?.[1];
      const token = /^token: (\S+)$/m.exec(stdout)?.[1];
      if (!url || !token) return;
      clearTimeout(limit);
      resolve({
        url,
        token,
        client: new ServeClient({ url, token }),
        env,
        stderr: () => stderr,
        stdout: () => stdout,
        child,
      });
    });
  });
}

/** Reads a session's stream into `seen` until `until` holds for an event (or the bound passes). */
export async function watchUntil(
  client: ServeClient,
  sessionId: string,
  until: (event: ServerEvent, seen: Array<{ id?: number; event: ServerEvent }>) => boolean,
  options: { after?: number; seen?: Array<{ id?: number; event: ServerEvent }> } = {},
): Promise<Array<{ id?: number; event: ServerEvent }>> {
  const seen = options.seen ?? [];
  const stop = new AbortController();
  const limit = setTimeout(() => stop.abort(), SERVE_LIMIT_MS);
  try {
    for await (const item of client.events(sessionId, { after: options.after, signal: stop.signal })) {
      seen.push(item as { id?: number; event: ServerEvent });
      if (until(item.event as ServerEvent, seen)) return seen;
    }
  } finally {
    clearTimeout(limit);
    stop.abort();
  }
  throw new Error(`the stream ended before the awaited event; saw ${seen.map((item) => item.event.type).join(", ")}`);
}

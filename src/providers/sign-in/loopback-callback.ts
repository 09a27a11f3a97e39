// The browser sign-in's callback: a one-shot HTTP server on 127.0.0.1 (never 0.0.0.0) that waits
// for the authorisation server to send the browser back with `?code=...&state=...`.
// What it refuses, each answered and the wait going on (a stray or hostile request must not end a
// sign-in the user is in the middle of):
// - a path other than /auth/callback, a method other than GET: 404 / 405;
// - a Host header other than localhost:<port> or 127.0.0.1:<port> (DNS rebinding: a page of another
//   site whose name resolves to 127.0.0.1): 421;
// - a request with an Origin header: the real callback is a top-level navigation, which carries
//   none; a script of another page (fetch, a form post) does, so it is another origin's: 403;
// - a wrong or missing `state` (a forged callback, a code injected from another login): 400
//   "State mismatch", as Codex answers it (codex-rs/login/src/server.rs).
// The first request with the right state ends the wait, whatever it carries (a code, or the
// server's `error`); the server closes then, and at the timeout.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { SignInError } from "./credential-store.ts";

interface CallbackResult {
  code: string;
}

interface LoopbackCallback {
  redirectUri: string;
  /** The code, once the browser comes back with it and the right state. */
  result: Promise<CallbackResult>;
  close(): void;
}

const DONE_PAGE = `<!doctype html><meta charset="utf-8"><title>harness</title><p>Signed in. You can close this tab and go back to the terminal.</p>`;

/** Starts the callback server; `result` settles on the right callback, at the timeout, or on abort. */
export async function startLoopbackCallback(options: {
  port: number;
  state: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** A refused request, in one line (no query string: it may hold a code). */
  onRefused(line: string): void;
}): Promise<LoopbackCallback> {
  let settle!: { resolve(result: CallbackResult): void; reject(error: Error): void };
  const result = new Promise<CallbackResult>((resolve, reject) => (settle = { resolve, reject }));
  let done = false;
  let port = options.port;
  const server = createServer((req, res) => {
    const answer = (status: number, text: string, type = "text/plain") => {
      res.writeHead(status, {
        "content-type": `${type}; charset=utf-8`,
        "cache-control": "no-store",
        connection: "close",
      });
      res.end(text);
    };
    const url = new URL(req.url ?? "/", "http://localhost");
    if (done) return answer(410, "This sign-in is over.");
    if (url.pathname !== "/auth/callback") return answer(404, "Not Found");
    if (req.method !== "GET") return answer(405, "Method Not Allowed");
    if (req.headers.host !== `localhost:${port}` && req.headers.host !== `127.0.0.1:${port}`) {
      options.onRefused(`refused a callback for another host (${String(req.headers.host).slice(0, 80)})`);
      return answer(421, "Misdirected Request");
    }
    if (req.headers.origin !== undefined) {
      options.onRefused(`refused a callback sent by a script of ${String(req.headers.origin).slice(0, 80)}`);
      return answer(403, "Forbidden");
    }
    if (url.searchParams.get("state") !== options.state) {
      options.onRefused("refused a callback with the wrong state (not this sign-in's)");
      return answer(400, "State mismatch");
    }
    done = true;
    const code = url.searchParams.get("code") ?? "";
    const error = url.searchParams.get("error");
    if (error || !code) {
      answer(400, "Sign-in failed. Go back to the terminal.");
      const word = /^[a-z_]{1,64}$/.test(error ?? "") ? error : "no code";
      return settle.reject(new SignInError(`ChatGPT sign-in was not completed (${word})`));
    }
    answer(200, DONE_PAGE, "text/html");
    settle.resolve({ code });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new SignInError(
              `port ${options.port} on 127.0.0.1 is taken (another sign-in running?); close it, or use harness login chatgpt --device`,
            )
          : error,
      ),
    );
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const timer = setTimeout(
    () =>
      settle.reject(
        new SignInError(
          `no sign-in came back within ${Math.round(options.timeoutMs / 1000)} s: run harness login chatgpt again`,
        ),
      ),
    options.timeoutMs,
  );
  const onAbort = () => settle.reject(new SignInError("sign-in interrupted: nothing was stored"));
  options.signal.addEventListener("abort", onAbort, { once: true });
  const close = () => {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", onAbort);
    server.closeAllConnections();
    server.close();
  };
  result.then(close, close);
  // Codex's redirect URI names `localhost`, which OpenAI's sign-in allows for this client.
  return { redirectUri: `http://localhost:${port}/auth/callback`, result, close };
}

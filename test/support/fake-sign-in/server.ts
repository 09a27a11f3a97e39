// One fake server on 127.0.0.1 holding OpenAI's sign-in and GitHub's (openai-auth.ts,
// github-auth.ts), and the checks the model endpoints make of a signed-in request (used as
// FakeLLM script steps: test/support/fake-llm/server.ts serves the replies). The environment
// that points a built CLI at them is `signInEnv` (the test hooks of
// src/providers/sign-in/sign-in-endpoints.ts).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "node:test";
import type { FixedStep, RecordedRequest } from "../fake-llm/server.ts";
import { FakeGitHub } from "./github-auth.ts";
import { FakeOpenAIAuth } from "./openai-auth.ts";

export class FakeSignIn {
  url = "";
  readonly openai = new FakeOpenAIAuth(() => this.url);
  readonly github = new FakeGitHub();
  /** Every request, as method and path (never a query: it may hold a code). */
  readonly requests: string[] = [];
  private server: Server | undefined;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        const url = new URL(req.url ?? "/", "http://127.0.0.1");
        this.requests.push(`${req.method} ${url.pathname}`);
        if (this.openai.handle(req, res, url, body) || this.github.handle(req, res, url, body)) return;
        res.writeHead(404, { "content-type": "application/json" });
        res.end('{"error":"not found"}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /**
   * What the ChatGPT backend refuses of a Responses request (undefined: nothing): no or an unknown
   * bearer, one past its `exp`, or no `chatgpt-account-id` of the account, 401; `store` not false, 400 {"detail":"Store
   * must be set to false"} (router-for-me/CLIProxyAPI#41, openai/codex#26173); no instructions,
   * 400 {"detail":"Instructions are required"} (as the Codex backend answers requests without them).
   */
  chatgptRefusal(request: RecordedRequest): FixedStep | undefined {
    const bearer = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ""))?.[1] ?? "";
    const exp = Number(jwtPayload(bearer).exp ?? 0);
    if (
      !this.openai.accessTokens.has(bearer) ||
      exp * 1000 <= Date.now() ||
      request.headers["chatgpt-account-id"] !== this.openai.accountId
    )
      return {
        status: 401,
        body: { detail: "Could not parse your authentication token. Please try signing in again." },
      };
    if (request.body?.store !== false) return { status: 400, body: { detail: "Store must be set to false" } };
    if (!request.body?.instructions) return { status: 400, body: { detail: "Instructions are required" } };
    return undefined;
  }

  /**
   * What Copilot's chat endpoint refuses: no Editor-Version, 400 "bad request: missing
   * Editor-Version header for IDE auth" (BerriAI/litellm#13256, openclaw/openclaw#71538); a bearer
   * that is not a live Copilot token (a GitHub token, an expired one), 401 "unauthorized: token expired".
   */
  copilotRefusal(request: RecordedRequest): FixedStep | undefined {
    if (!request.headers["editor-version"])
      return {
        raw: "bad request: missing Editor-Version header for IDE auth\n",
        contentType: "text/plain",
        status: 400,
      };
    const bearer = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ""))?.[1] ?? "";
    if (!this.github.copilotTokenLive(bearer))
      return { raw: "unauthorized: token expired\n", contentType: "text/plain", status: 401 };
    return undefined;
  }

  /** The test hooks that send the CLI's sign-ins here, and its model calls to `modelUrl`. */
  env(modelUrl: string): Record<string, string> {
    return {
      HARNESS_TEST_CHATGPT_ISSUER: this.url,
      HARNESS_TEST_CHATGPT_API: `${modelUrl}/backend-api/codex`,
      HARNESS_TEST_GITHUB_URL: this.url,
      HARNESS_TEST_GITHUB_API: this.url,
      HARNESS_TEST_COPILOT_API: modelUrl,
      HARNESS_TEST_CALLBACK_PORT: "0",
    };
  }
}

export async function startFakeSignIn(): Promise<FakeSignIn> {
  return new FakeSignIn().start();
}

function jwtPayload(token: string): Record<string, unknown> {
  try {
    return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** A start function whose fakes are closed after each test of the file. */
export function fakeSignInPerTest(): () => Promise<FakeSignIn> {
  let fakes: FakeSignIn[] = [];
  afterEach(async () => {
    for (const fake of fakes) await fake.close();
    fakes = [];
  });
  return async () => {
    const fake = await startFakeSignIn();
    fakes.push(fake);
    return fake;
  };
}

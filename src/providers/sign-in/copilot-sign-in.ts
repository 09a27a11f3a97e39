// Sign in with GitHub Copilot: GitHub's device flow, then the exchange of GitHub's token for a
// short-lived Copilot token, then Copilot's OpenAI-compatible chat completions. Learnt from:
// - GitHub's device flow documentation
//   (https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps#device-flow):
//   POST /login/device/code {client_id, scope} gives device_code, user_code, verification_uri,
//   expires_in, interval; POST /login/oauth/access_token {client_id, device_code, grant_type
//   urn:ietf:params:oauth:grant-type:device_code} answers 200 with `error` authorization_pending,
//   slow_down (add 5 s to the interval; its answer carries the new `interval`), expired_token,
//   access_denied, or the access_token (github/copilot-cli#957 on slow_down; pydantic/pydantic-ai#8616
//   notes the 200 status of these errors);
// - the Copilot integrations in opencode (github.com/sst/opencode-copilot-auth, index.mjs) and
//   copilot.vim: the editors' public client id `Iv1.b507a08c87ecfe98`, scope `read:user`, the
//   exchange GET https://api.github.com/copilot_internal/v2/token with the GitHub token and the
//   editor headers, answered with {token, expires_at (seconds), refresh_in, sku, endpoints};
// - Copilot's chat endpoint refuses a request without `Editor-Version` with 400 "bad request:
//   missing Editor-Version header for IDE auth" (BerriAI/litellm#13256, openclaw/openclaw#71538),
//   and wants `Copilot-Integration-Id` (alvinunreal/tmuxai#144);
// - an account without Copilot gets 404 from the exchange (ThinkInAIXYZ/deepchat#1021), a revoked
//   GitHub token 401.

import { waitOrAbort } from "./chatgpt-sign-in.ts";
import { type CopilotCredential, SignInError } from "./credential-store.ts";
import { endpoint } from "./sign-in-endpoints.ts";
import { oauthError, secondsOr, signInRequest, textField, tokenField } from "./sign-in-http.ts";

const COPILOT_CLIENT_ID = "Iv1.b507a08c87ecfe98";
/** The editor Copilot's endpoint is told it serves; harness names itself as the plugin. */
const EDITOR_HEADERS = {
  "editor-version": "vscode/1.99.3",
  "editor-plugin-version": "harness/1.0",
  "copilot-integration-id": "vscode-chat",
  "user-agent": "harness",
};
/** A Copilot token (about 30 minutes long) is made anew this long before it expires. */
const REFRESH_MARGIN_MS = 2 * 60_000;
const FIX = "run harness login copilot";

/** GitHub's device flow: shows the code, polls as GitHub asks, returns GitHub's OAuth token. */
export async function githubDeviceFlow(
  say: (line: string) => void,
  options: { signal: AbortSignal },
): Promise<{ githubToken: string }> {
  const github = endpoint("HARNESS_TEST_GITHUB_URL");
  const what = "GitHub sign-in";
  const start = await signInRequest(what, `${github}/login/device/code`, {
    form: { client_id: COPILOT_CLIENT_ID, scope: "read:user" },
  });
  if (start.status !== 200)
    throw new SignInError(`${what} could not start (HTTP ${start.status} ${oauthError(start)})`.trim());
  const deviceCode = tokenField(start, "device_code", what);
  const userCode = textField(start.json, "user_code");
  const verification = textField(start.json, "verification_uri");
  if (!userCode || !/^[A-Z0-9-]{4,16}$/i.test(userCode) || !verification || !/^https?:\/\//.test(verification))
    throw new SignInError(`${what}: the server's answer has no usable user code or address`);
  let interval = secondsOr(start.json?.interval, 5, 60);
  const expiresIn = secondsOr(start.json?.expires_in, 900, 3600);
  say(`Open ${verification} in a browser and enter the code ${userCode}`);
  const deadline = Date.now() + expiresIn * 1000;
  for (;;) {
    await waitOrAbort(interval * 1000, options.signal);
    const poll = await signInRequest(what, `${github}/login/oauth/access_token`, {
      form: {
        client_id: COPILOT_CLIENT_ID,
        device_code: deviceCode,
        grant_type: "urn:ietf:params:oauth:grant-type:device_code",
      },
    });
    const error = oauthError(poll);
    if (poll.status === 200 && !error) return { githubToken: tokenField(poll, "access_token", what) };
    if (error === "authorization_pending") {
      if (Date.now() >= deadline) throw new SignInError(`${what}: the code expired; ${FIX} again`);
      continue;
    }
    if (error === "slow_down") {
      interval = secondsOr(poll.json?.interval, interval + 5, 120);
      continue;
    }
    if (error === "expired_token")
      throw new SignInError(`${what}: the code expired before it was entered; ${FIX} again`);
    if (error === "access_denied")
      throw new SignInError(`${what}: the request was denied in the browser; nothing was stored`);
    throw new SignInError(`${what} failed (HTTP ${poll.status} ${error})`.trim());
  }
}

/** Who the GitHub token belongs to (for `harness auth`); undefined when GitHub does not say. */
export async function githubLogin(githubToken: string): Promise<string | undefined> {
  const reply = await signInRequest("GitHub sign-in", `${endpoint("HARNESS_TEST_GITHUB_API")}/user`, {
    headers: { authorization: `token ${githubToken}`, "user-agent": "harness" },
  });
  return reply.status === 200 ? textField(reply.json, "login") : undefined;
}

/** Exchanges GitHub's token for a Copilot token; a refusal says what to do. */
export async function exchangeCopilotToken(credential: CopilotCredential): Promise<CopilotCredential> {
  const what = "Copilot sign-in";
  const reply = await signInRequest(what, `${endpoint("HARNESS_TEST_GITHUB_API")}/copilot_internal/v2/token`, {
    headers: { authorization: `token ${credential.githubToken}`, ...EDITOR_HEADERS },
  });
  if (reply.status === 401) throw new SignInError(`your GitHub sign-in for Copilot was revoked or has expired; ${FIX}`);
  if (reply.status === 403 || reply.status === 404)
    throw new SignInError(
      `this GitHub account${credential.login ? ` (${credential.login})` : ""} has no Copilot access (HTTP ${reply.status})`,
    );
  if (reply.status !== 200)
    throw new SignInError(`${what}: the token exchange failed (HTTP ${reply.status}); try again`);
  const token = tokenField(reply, "token", what);
  const expiresAt = Number(reply.json?.expires_at);
  if (!Number.isFinite(expiresAt) || expiresAt <= 0)
    throw new SignInError(`${what}: the server's answer has no usable "expires_at"`);
  const sku = textField(reply.json, "sku");
  return { ...credential, copilotToken: token, copilotExpiresAt: expiresAt * 1000, ...(sku ? { sku } : {}) };
}

export function copilotNeedsRefresh(credential: CopilotCredential, now = Date.now()): boolean {
  return !credential.copilotToken || (credential.copilotExpiresAt ?? 0) - now < REFRESH_MARGIN_MS;
}

/** The headers of a request to Copilot's chat endpoint. */
export function copilotHeaders(credential: CopilotCredential): Record<string, string> {
  return {
    authorization: `Bearer ${credential.copilotToken}`,
    ...EDITOR_HEADERS,
    "openai-intent": "conversation-edits",
  };
}

// Sign in with ChatGPT: OpenAI's OAuth 2.0 as Codex CLI does it, learnt from its public source
// (github.com/openai/codex, codex-rs/login/src/server.rs and device_code_auth.rs) and, for the
// refresh, from codex-rs/login/src/auth/manager.rs as described in the issue threads cited below.
// No code is taken from there; the rules are:
// - issuer https://auth.openai.com, public client id `app_EMoamEEZ73f0CkXaXp7hrann`, scopes
//   `openid profile email offline_access`, PKCE S256, a 32-byte random `state`;
// - the code goes to `{issuer}/oauth/token` as a form (`grant_type=authorization_code`, code,
//   redirect_uri, client_id, code_verifier) and comes back as id_token, access_token, refresh_token;
// - the id token's claim `https://api.openai.com/auth` holds `chatgpt_account_id` (sent with every
//   request as `chatgpt-account-id`) and `chatgpt_plan_type`;
// - device code: POST `{issuer}/api/accounts/deviceauth/usercode` {client_id} gives device_auth_id,
//   user_code and interval; the user enters the code at `{issuer}/codex/device`; polling
//   `{issuer}/api/accounts/deviceauth/token` {device_auth_id, user_code} answers 403/404 while
//   pending and then an authorization_code with its code_verifier, exchanged as above with the
//   redirect_uri `{issuer}/deviceauth/callback`; Codex gives up after 15 minutes;
// - refresh: POST `{issuer}/oauth/token` as JSON {client_id, grant_type: refresh_token,
//   refresh_token, scope}; each refresh rotates the refresh token, and a used, expired or revoked
//   one is refused with 401 and `{"error":{"code":"refresh_token_reused"|"refresh_token_expired"|
//   "refresh_token_invalidated",...}}` (openai/codex#6028, #6498, Lampese/codex-switcher#37,
//   openai/codex#24830, which also treats a 400 with those codes the same way).
import { createHash, randomBytes } from "node:crypto";
import { type ChatGptCredential, SignInError } from "./credential-store.ts";
import { endpoint } from "./sign-in-endpoints.ts";
import { jwtClaims, oauthError, secondsOr, signInRequest, textField, tokenField } from "./sign-in-http.ts";

const CHATGPT_CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann";
const SCOPE = "openid profile email offline_access";
/** What harness calls itself to OpenAI (Codex says `codex_cli_rs`, opencode `opencode`). */
const ORIGINATOR = "harness";
/** How long before its expiry an access token is refreshed (Codex: five minutes, robinebers/openusage#568). */
const REFRESH_MARGIN_MS = 5 * 60_000;
const FIX = "run harness login chatgpt";

/** A PKCE pair (RFC 7636, S256) and a state. */
export function newAuthorisation(): { verifier: string; challenge: string; state: string } {
  const verifier = randomBytes(32).toString("base64url");
  return {
    verifier,
    challenge: createHash("sha256").update(verifier).digest("base64url"),
    state: randomBytes(32).toString("base64url"),
  };
}

/** The page the browser opens. */
export function authoriseUrl(redirectUri: string, auth: { challenge: string; state: string }): string {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: CHATGPT_CLIENT_ID,
    redirect_uri: redirectUri,
    scope: SCOPE,
    code_challenge: auth.challenge,
    code_challenge_method: "S256",
    id_token_add_organizations: "true",
    codex_cli_simplified_flow: "true",
    state: auth.state,
    originator: ORIGINATOR,
  });
  return `${endpoint("HARNESS_TEST_CHATGPT_ISSUER")}/oauth/authorize?${query}`;
}

/** Exchanges an authorisation code for the tokens, as a stored credential. */
export async function exchangeCode(code: string, redirectUri: string, verifier: string): Promise<ChatGptCredential> {
  const reply = await signInRequest("ChatGPT sign-in", `${endpoint("HARNESS_TEST_CHATGPT_ISSUER")}/oauth/token`, {
    form: {
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      client_id: CHATGPT_CLIENT_ID,
      code_verifier: verifier,
    },
  });
  if (reply.status !== 200)
    throw new SignInError(
      `ChatGPT sign-in: the token endpoint refused the code (HTTP ${reply.status} ${oauthError(reply)})`.trim(),
    );
  return credentialOf(reply, undefined);
}

/** The credential an answer of the token endpoint makes; a refresh may leave out what did not change. */
function credentialOf(
  reply: Awaited<ReturnType<typeof signInRequest>>,
  previous: ChatGptCredential | undefined,
): ChatGptCredential {
  const what = "ChatGPT sign-in";
  const accessToken = tokenField(reply, "access_token", what);
  const refreshToken =
    previous && !reply.json?.refresh_token ? previous.refreshToken : tokenField(reply, "refresh_token", what);
  const idToken = previous && !reply.json?.id_token ? previous.idToken : tokenField(reply, "id_token", what);
  const claims = jwtClaims(idToken);
  const auth = claims["https://api.openai.com/auth"] as Record<string, unknown> | undefined;
  const accountId = textField(auth, "chatgpt_account_id") ?? previous?.accountId;
  if (!accountId)
    throw new SignInError(
      `${what}: the sign-in names no ChatGPT account (no chatgpt_account_id); is this a ChatGPT login?`,
    );
  const expiresIn = reply.json?.expires_in;
  const accessExp = jwtClaims(accessToken).exp;
  const expiresAt =
    typeof accessExp === "number" && accessExp > 0
      ? accessExp * 1000
      : typeof expiresIn === "number" && expiresIn > 0 && expiresIn < 366 * 86400
        ? Date.now() + expiresIn * 1000
        : Date.now() + 3600_000;
  return {
    kind: "chatgpt",
    accessToken,
    refreshToken,
    idToken,
    accountId,
    ...definedText("email", textField(claims, "email") ?? previous?.email),
    ...definedText("plan", textField(auth, "chatgpt_plan_type") ?? previous?.plan),
    expiresAt,
  };
}

function definedText<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

/** Whether the access token should be refreshed now. */
export function chatgptNeedsRefresh(credential: ChatGptCredential, now = Date.now()): boolean {
  return credential.expiresAt - now < REFRESH_MARGIN_MS;
}

/** A fresh access token from the refresh token; a refused refresh is a SignInError naming the fix. */
export async function refreshChatGpt(credential: ChatGptCredential): Promise<ChatGptCredential> {
  const reply = await signInRequest(
    "ChatGPT sign-in refresh",
    `${endpoint("HARNESS_TEST_CHATGPT_ISSUER")}/oauth/token`,
    {
      json: {
        client_id: CHATGPT_CLIENT_ID,
        grant_type: "refresh_token",
        refresh_token: credential.refreshToken,
        scope: "openid profile email",
      },
    },
  );
  if (reply.status === 200) return credentialOf(reply, credential);
  const code = oauthError(reply);
  const why: Record<string, string> = {
    refresh_token_reused: "its refresh token was already used (by another program signed in as you?)",
    refresh_token_expired: "it has expired",
    refresh_token_invalidated: "it was revoked",
    invalid_grant: "it was revoked or has expired",
  };
  if (reply.status === 400 || reply.status === 401)
    throw new SignInError(
      `your ChatGPT sign-in cannot be renewed: ${why[code] ?? `refused (${code || `HTTP ${reply.status}`})`}; ${FIX}`,
    );
  throw new SignInError(`ChatGPT sign-in refresh failed (HTTP ${reply.status}); try again, or ${FIX}`);
}

/** How long a ChatGPT device code lives (Codex: "expires in 15 minutes"). */
const DEVICE_CODE_LIFE_MS = 15 * 60 * 1000;
/** How long logout waits for the revocation (Codex: REVOKE_HTTP_TIMEOUT, ten seconds). */
const REVOKE_TIMEOUT_MS = 10_000;

/**
 * Revokes a sign-in at OpenAI, as `codex logout` does (openai/codex codex-rs/login/src/auth/revoke.rs):
 * POST `{issuer}/oauth/revoke` as JSON {token: the refresh token, token_type_hint: "refresh_token",
 * client_id} (RFC 7009 2.1), bounded to ten seconds. Throws a SignInError naming the status on
 * failure; the caller removes the local tokens anyway.
 */
export async function revokeChatGpt(credential: ChatGptCredential): Promise<void> {
  const issuer = endpoint("HARNESS_TEST_CHATGPT_ISSUER");
  const reply = await signInRequest("ChatGPT revocation", `${issuer}/oauth/revoke`, {
    json: { token: credential.refreshToken, token_type_hint: "refresh_token", client_id: CHATGPT_CLIENT_ID },
    timeoutMs: REVOKE_TIMEOUT_MS,
  });
  if (reply.status < 200 || reply.status > 299) {
    const code = oauthError(reply);
    throw new SignInError(`ChatGPT revocation failed (HTTP ${reply.status}${code ? `, ${code}` : ""})`);
  }
}

/** The device-code sign-in: shows the code, waits for the user, returns the credential. */
export async function deviceSignIn(
  say: (line: string) => void,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<ChatGptCredential> {
  const issuer = endpoint("HARNESS_TEST_CHATGPT_ISSUER");
  const start = await signInRequest("ChatGPT device sign-in", `${issuer}/api/accounts/deviceauth/usercode`, {
    json: { client_id: CHATGPT_CLIENT_ID },
  });
  if (start.status === 404)
    throw new SignInError(
      "ChatGPT device sign-in is not enabled for this account: use harness login chatgpt (the browser)",
    );
  if (start.status !== 200) throw new SignInError(`ChatGPT device sign-in could not start (HTTP ${start.status})`);
  const deviceAuthId = tokenField(start, "device_auth_id", "ChatGPT device sign-in");
  const userCode = start.json?.user_code ?? start.json?.usercode;
  if (typeof userCode !== "string" || !/^[A-Za-z0-9-]{4,32}$/.test(userCode))
    throw new SignInError("ChatGPT device sign-in: the server's answer has no usable user code");
  const interval = secondsOr(start.json?.interval, 5, 60);
  say(`Open ${issuer}/codex/device in a browser, sign in, and enter the code ${userCode}`);
  say("(device codes are a phishing target: never enter one someone else gave you)");
  // The code lives 15 minutes (Codex's prompt says so and its poll stops then,
  // codex-rs/login/src/device_code_auth.rs); the server's answer after that is not public, and
  // Codex reads 403 and 404 alike as "not yet", so the end of the wait is our own clock.
  const deadline = Date.now() + Math.min(options.timeoutMs, DEVICE_CODE_LIFE_MS);
  for (;;) {
    const poll = await signInRequest("ChatGPT device sign-in", `${issuer}/api/accounts/deviceauth/token`, {
      json: { device_auth_id: deviceAuthId, user_code: userCode },
    });
    if (poll.status === 200) {
      const code = tokenField(poll, "authorization_code", "ChatGPT device sign-in");
      const verifier = tokenField(poll, "code_verifier", "ChatGPT device sign-in");
      return exchangeCode(code, `${issuer}/deviceauth/callback`, verifier);
    }
    if (poll.status !== 403 && poll.status !== 404)
      throw new SignInError(`ChatGPT device sign-in failed (HTTP ${poll.status})`);
    if (Date.now() >= deadline)
      throw new SignInError(
        "ChatGPT device sign-in: the code was not entered in time or has expired; nothing was stored; run harness login chatgpt --device again",
      );
    await waitOrAbort(interval * 1000, options.signal);
  }
}

/** Waits, or throws when the user interrupts. */
export async function waitOrAbort(ms: number, signal: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
  if (signal.aborted) throw new SignInError("sign-in interrupted: nothing was stored");
}

/** The headers of a request to the ChatGPT backend (Codex's: bearer, account id, `OpenAI-Beta`, originator). */
export function chatgptHeaders(credential: ChatGptCredential): Record<string, string> {
  return {
    authorization: `Bearer ${credential.accessToken}`,
    "chatgpt-account-id": credential.accountId,
    "openai-beta": "responses=experimental",
    originator: ORIGINATOR,
  };
}

// A fake of OpenAI's sign-in (auth.openai.com) as Codex CLI uses it, from public sources only (no
// code taken): openai/codex codex-rs/login/src/server.rs (authorize parameters, the form POST to
// /oauth/token, the `https://api.openai.com/auth` claim with chatgpt_account_id) and
// device_code_auth.rs (deviceauth/usercode and deviceauth/token, 403 while pending, the
// code_verifier handed back, redirect_uri {issuer}/deviceauth/callback). What it refuses, as the
// real one does:
// - an authorize request without response_type=code, the client id, S256, a state, or with a
//   redirect_uri other than http://localhost:<port>/auth/callback (Codex's allow-list names
//   localhost ports 1455 and 1457; the fake takes any port, as the tests pick free ones);
// - a code used twice, for another redirect_uri, or whose verifier does not hash to the
//   challenge (RFC 7636 4.6): 400 {"error":"invalid_grant"} (RFC 6749 5.2);
// - a refresh token used twice or revoked: 401 with the body of openai/codex#6028 and
//   Lampese/codex-switcher#37 (`refresh_token_reused`), or `refresh_token_invalidated`.
// Revocation (openai/codex codex-rs/login/src/auth/revoke.rs: `codex logout` POSTs JSON
// {token, token_type_hint, client_id} to https://auth.openai.com/oauth/revoke; RFC 7009): a
// refresh token revoked there is refused afterwards as `refresh_token_invalidated`; an unknown
// token is answered 200 as RFC 7009 2.2 asks; a refresh-token revocation without Codex's client id
// is 401 invalid_client (RFC 7009 2.1 authenticates the client).
import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

export const CODEX_CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann";

/** How the fake's token endpoint misbehaves, for the hostile-server attacks. */
export type HostileMode = "huge-body" | "huge-token" | "not-json" | "wrong-shape" | "control-chars";

const jwt = (claims: Record<string, unknown>) =>
  `${Buffer.from('{"alg":"RS256","typ":"JWT"}').toString("base64url")}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${randomBytes(16).toString("base64url")}`;

export class FakeOpenAIAuth {
  /** Seconds each access token lives. */
  accessTtl = 3600;
  email = "user@example.com";
  accountId = "acct-fake-1234";
  plan = "plus";
  hostile: HostileMode | undefined;
  /** Polls of deviceauth/token answered "pending" before the code is handed over. */
  devicePendingPolls = 1;
  /**
   * How long a device code lives. Codex tells the user it "expires in 15 minutes" and stops polling
   * then (openai/codex codex-rs/login/src/device_code_auth.rs, print_device_code_prompt and
   * poll_for_token's max_wait); a test sets a short one. What auth.openai.com answers for an
   * expired code is not public: Codex treats 403 and 404 alike as "not yet", so the fake forgets
   * the code and answers 404, as for an unknown one, and only the client's own clock ends the wait.
   */
  deviceExpiryMs = 15 * 60 * 1000;
  /** A refresh answers this late, so two processes' refreshes overlap. */
  refreshDelayMs = 0;
  readonly accessTokens = new Set<string>();
  readonly log: string[] = [];
  refreshes = 0;
  /** The status /oauth/revoke answers with (a service down: 503). */
  revokeStatus = 200;
  private codes = new Map<string, { challenge: string; redirectUri: string; used: boolean }>();
  private refreshTokens = new Map<string, "live" | "used" | "revoked">();
  private devices = new Map<string, { userCode: string; polls: number; expiresAt: number }>();

  constructor(readonly issuer: () => string) {}

  /** Every refresh token stops working (the user revoked the app, or signed out everywhere). */
  revokeAll(): void {
    for (const token of this.refreshTokens.keys()) this.refreshTokens.set(token, "revoked");
    this.accessTokens.clear();
  }

  handle(req: IncomingMessage, res: ServerResponse, url: URL, body: string): boolean {
    const send = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(typeof value === "string" ? value : JSON.stringify(value));
      return true;
    };
    if (url.pathname === "/oauth/authorize") {
      const q = url.searchParams;
      const redirect = q.get("redirect_uri") ?? "";
      if (
        q.get("response_type") !== "code" ||
        q.get("client_id") !== CODEX_CLIENT_ID ||
        q.get("code_challenge_method") !== "S256" ||
        !q.get("code_challenge") ||
        !q.get("state") ||
        !/^http:\/\/localhost:\d+\/auth\/callback$/.test(redirect)
      ) {
        send(400, { error: "invalid_request", error_description: "The request is missing a required parameter" });
        return true;
      }
      const code = `ac_${randomBytes(24).toString("base64url")}`;
      this.codes.set(code, { challenge: q.get("code_challenge")!, redirectUri: redirect, used: false });
      const back = new URL(redirect);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state")!);
      res.writeHead(302, { location: back.href });
      res.end();
      return true;
    }
    if (url.pathname === "/oauth/token" && req.method === "POST") {
      this.token(req, body, send);
      return true;
    }
    if (url.pathname === "/oauth/revoke" && req.method === "POST") {
      const asked = JSON.parse(body || "{}");
      this.log.push(`revoke ${asked.token_type_hint}`);
      if (this.revokeStatus !== 200) return send(this.revokeStatus, { error: "temporarily_unavailable" });
      if (asked.token_type_hint === "refresh_token" && asked.client_id !== CODEX_CLIENT_ID)
        return send(401, { error: "invalid_client" });
      if (this.refreshTokens.has(asked.token)) this.refreshTokens.set(asked.token, "revoked");
      return send(200, {});
    }
    if (url.pathname === "/api/accounts/deviceauth/usercode" && req.method === "POST") {
      if (JSON.parse(body || "{}").client_id !== CODEX_CLIENT_ID) return send(400, { error: "invalid_client" });
      const id = `dev_${randomBytes(12).toString("hex")}`;
      const userCode = `${randomBytes(2).toString("hex")}-${randomBytes(2).toString("hex")}`.toUpperCase();
      this.devices.set(id, { userCode, polls: 0, expiresAt: Date.now() + this.deviceExpiryMs });
      send(200, { device_auth_id: id, user_code: userCode, interval: "0" });
      return true;
    }
    if (url.pathname === "/api/accounts/deviceauth/token" && req.method === "POST") {
      const asked = JSON.parse(body || "{}");
      const device = this.devices.get(asked.device_auth_id);
      if (device && Date.now() >= device.expiresAt) {
        this.devices.delete(asked.device_auth_id);
        this.log.push("device code expired");
      }
      if (!device || !this.devices.has(asked.device_auth_id) || device.userCode !== asked.user_code)
        return send(404, { error: "not_found" });
      if (device.polls++ < this.devicePendingPolls) return send(403, { error: "authorization_pending" });
      this.devices.delete(asked.device_auth_id);
      const verifier = randomBytes(32).toString("base64url");
      const challenge = createHash("sha256").update(verifier).digest("base64url");
      const code = `ac_${randomBytes(24).toString("base64url")}`;
      this.codes.set(code, { challenge, redirectUri: `${this.issuer()}/deviceauth/callback`, used: false });
      send(200, { authorization_code: code, code_challenge: challenge, code_verifier: verifier });
      return true;
    }
    return false;
  }

  private token(req: IncomingMessage, body: string, send: (status: number, value: unknown) => void): void {
    const json = (req.headers["content-type"] ?? "").includes("json");
    const form: Record<string, string> = json
      ? JSON.parse(body || "{}")
      : Object.fromEntries(new URLSearchParams(body));
    this.log.push(`token ${form.grant_type}`);
    if (form.client_id !== CODEX_CLIENT_ID) return send(401, { error: "invalid_client" });
    if (form.grant_type === "authorization_code") {
      const code = this.codes.get(form.code ?? "");
      const hashed = createHash("sha256")
        .update(form.code_verifier ?? "")
        .digest("base64url");
      if (!code || code.used || code.redirectUri !== form.redirect_uri || hashed !== code.challenge)
        return send(400, { error: "invalid_grant", error_description: "Invalid authorization code" });
      code.used = true;
      return this.issue(send);
    }
    if (form.grant_type === "refresh_token") {
      this.refreshes++;
      setTimeout(() => this.refresh(form, send), this.refreshDelayMs);
      return;
    }
    send(400, { error: "unsupported_grant_type" });
  }

  private refresh(form: Record<string, string>, send: (status: number, value: unknown) => void): void {
    {
      const state = this.refreshTokens.get(form.refresh_token ?? "");
      if (state !== "live") {
        const used = state === "used";
        this.log.push(used ? "reused" : "revoked");
        return send(401, {
          error: {
            message: used
              ? "Your refresh token has already been used to generate a new access token. Please try signing in again."
              : "Your refresh token has been invalidated. Please try signing in again.",
            type: "invalid_request_error",
            param: null,
            code: used ? "refresh_token_reused" : "refresh_token_invalidated",
          },
        });
      }
      this.refreshTokens.set(form.refresh_token, "used");
      return this.issue(send);
    }
  }

  private issue(send: (status: number, value: unknown) => void): void {
    if (this.hostile === "huge-body") return send(200, { access_token: "x".repeat(4 * 1024 * 1024) });
    if (this.hostile === "not-json") return send(200, "<html>Service Unavailable</html>");
    if (this.hostile === "wrong-shape") return send(200, { access_token: 42, refresh_token: ["a"], id_token: null });
    const access = jwt({ exp: Math.floor(Date.now() / 1000) + this.accessTtl, sub: "user-1" });
    const refresh = `rt_${randomBytes(24).toString("base64url")}`;
    this.accessTokens.add(access);
    this.refreshTokens.set(refresh, "live");
    const idToken = jwt({
      email: this.hostile === "control-chars" ? "evil\u001b]0;pwned\u0007@example.com" : this.email,
      "https://api.openai.com/auth": { chatgpt_account_id: this.accountId, chatgpt_plan_type: this.plan },
    });
    if (this.hostile === "huge-token")
      return send(200, { access_token: `a${"b".repeat(100_000)}`, refresh_token: refresh, id_token: idToken });
    send(200, { id_token: idToken, access_token: access, refresh_token: refresh, expires_in: this.accessTtl });
  }
}

// A fake of GitHub's device flow and Copilot's token exchange, from public sources only (no code
// taken): GitHub's device flow documentation
// (https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps#device-flow:
// 200 with `error` authorization_pending / slow_down (interval + 5) / expired_token /
// access_denied; polling before the interval has passed is answered slow_down), and the exchange
// as the Copilot integrations make it (sst/opencode-copilot-auth index.mjs, copilot.vim): GET
// /copilot_internal/v2/token with the GitHub token and editor headers, answered with token,
// expires_at, refresh_in, sku, endpoints. An account without Copilot gets 404 (ThinkInAIXYZ/deepchat#1021);
// a bad GitHub token gets 401 {"message":"Bad credentials"} as the REST API answers it.
// The device flow's errors carry `error`, `error_description` and `error_uri` as GitHub's OAuth
// errors do (docs.github.com, "Authorizing OAuth apps", "Error codes for the device flow"): a
// device code past its `expires_in` (the user never entered it in time) is `expired_token`, and
// a new code must be asked for.
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

export const COPILOT_CLIENT_ID = "Iv1.b507a08c87ecfe98";

export class FakeGitHub {
  /** What the access-token endpoint answers to each poll, in turn; then the token. */
  pollAnswers: string[] = ["authorization_pending"];
  /** Seconds a Copilot token lives. */
  copilotTtl = 1800;
  hasCopilot = true;
  interval = 0;
  /** Seconds a device code lives (`expires_in`; GitHub's is 900). */
  deviceTtl = 900;
  readonly githubTokens = new Set<string>();
  readonly copilotTokens = new Set<string>();
  exchanges = 0;
  private devices = new Map<string, { polls: number; lastPoll: number; interval: number; expiresAt: number }>();

  handle(req: IncomingMessage, res: ServerResponse, url: URL, body: string): boolean {
    const send = (status: number, value: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
      return true;
    };
    const form: Record<string, string> = (req.headers["content-type"] ?? "").includes("json")
      ? JSON.parse(body || "{}")
      : Object.fromEntries(new URLSearchParams(body));
    if (url.pathname === "/login/device/code" && req.method === "POST") {
      if (form.client_id !== COPILOT_CLIENT_ID) return send(404, { error: "Not Found" });
      const deviceCode = randomBytes(20).toString("hex");
      this.devices.set(deviceCode, {
        polls: 0,
        lastPoll: 0,
        interval: this.interval,
        expiresAt: Date.now() + this.deviceTtl * 1000,
      });
      send(200, {
        device_code: deviceCode,
        user_code: "WDJB-MJHT",
        verification_uri: "https://github.com/login/device",
        expires_in: this.deviceTtl,
        interval: this.interval,
      });
      return true;
    }
    if (url.pathname === "/login/oauth/access_token" && req.method === "POST") {
      const device = this.devices.get(form.device_code ?? "");
      if (form.client_id !== COPILOT_CLIENT_ID || form.grant_type !== "urn:ietf:params:oauth:grant-type:device_code")
        return send(200, { error: "unsupported_grant_type" });
      if (!device) return send(200, deviceError("incorrect_device_code"));
      const now = Date.now();
      if (now >= device.expiresAt) return send(200, deviceError("expired_token"));
      if (device.lastPoll && now - device.lastPoll < device.interval * 1000) {
        device.interval += 5;
        return send(200, { ...deviceError("slow_down"), interval: device.interval });
      }
      device.lastPoll = now;
      const answer = this.pollAnswers[device.polls++];
      if (answer === "slow_down") {
        device.interval += 5;
        return send(200, { ...deviceError("slow_down"), interval: device.interval });
      }
      if (answer) return send(200, deviceError(answer));
      this.devices.delete(form.device_code);
      const token = `gho_${randomBytes(18).toString("hex")}`;
      this.githubTokens.add(token);
      send(200, { access_token: token, token_type: "bearer", scope: "read:user" });
      return true;
    }
    const githubToken = /^(?:token|Bearer) (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
    if (url.pathname === "/user") {
      if (!this.githubTokens.has(githubToken)) return send(401, { message: "Bad credentials" });
      return send(200, { login: "octocat", id: 1 });
    }
    if (url.pathname === "/copilot_internal/v2/token") {
      this.exchanges++;
      if (!this.githubTokens.has(githubToken))
        return send(401, { message: "Bad credentials", documentation_url: "https://docs.github.com/rest" });
      if (!req.headers["editor-version"]) return send(400, { message: "missing Editor-Version header" });
      if (!this.hasCopilot)
        return send(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
      const expiresAt = Math.floor(Date.now() / 1000) + this.copilotTtl;
      const token = `tid=${randomBytes(8).toString("hex")};exp=${expiresAt};sku=copilot_individual;8kp=1:${randomBytes(16).toString("hex")}`;
      this.copilotTokens.add(token);
      send(200, {
        token,
        expires_at: expiresAt,
        refresh_in: Math.max(this.copilotTtl - 300, 0),
        sku: "copilot_individual",
        endpoints: { api: "https://api.individual.githubcopilot.com" },
      });
      return true;
    }
    return false;
  }

  /** Whether a Copilot token is one this fake made and its `exp` has not passed. */
  copilotTokenLive(token: string): boolean {
    const exp = Number(/;exp=(\d+);/.exec(token)?.[1] ?? 0);
    return this.copilotTokens.has(token) && exp * 1000 > Date.now();
  }

  /** The user revoked the app on github.com/settings/applications. */
  revokeAll(): void {
    this.githubTokens.clear();
    this.copilotTokens.clear();
  }
}

/** What GitHub says for each device-flow error (the docs' table; the descriptions are its own words for them). */
const DEVICE_ERRORS: Record<string, string> = {
  authorization_pending: "The authorization request is still pending.",
  slow_down: "Too many requests have been made in the same timeframe.",
  expired_token: "The device_code has expired.",
  access_denied: "The authorization request was denied.",
  incorrect_device_code: "The device_code provided is not valid.",
};

function deviceError(error: string): Record<string, string> {
  return {
    error,
    error_description: DEVICE_ERRORS[error] ?? error,
    error_uri: "https://docs.github.com/developers/apps/authorizing-oauth-apps#error-codes-for-the-device-flow",
  };
}

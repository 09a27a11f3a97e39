// A fake of GitHub's device flow and Copilot's token exchange, from public sources only (no code
// taken): GitHub's device flow documentation
// (https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps#device-flow:
// 200 with `error` authorization_pending / slow_down (interval + 5) / expired_token /
// access_denied; polling before the interval has passed is answered slow_down), and the exchange
// as the Copilot integrations make it (sst/opencode-copilot-auth index.mjs, copilot.vim): GET
// /copilot_internal/v2/token with the GitHub token and editor headers, answered with token,
// expires_at, refresh_in, sku, endpoints. An account without Copilot gets 404 (ThinkInAIXYZ/deepchat#1021);
// a bad GitHub token gets 401 {"message":"Bad credentials"} as the REST API answers it.
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
  readonly githubTokens = new Set<string>();
  readonly copilotTokens = new Set<string>();
  exchanges = 0;
  private devices = new Map<string, { polls: number; lastPoll: number; interval: number }>();

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
      this.devices.set(deviceCode, { polls: 0, lastPoll: 0, interval: this.interval });
      send(200, {
        device_code: deviceCode,
        user_code: "WDJB-MJHT",
        verification_uri: "https://github.com/login/device",
        expires_in: 900,
        interval: this.interval,
      });
      return true;
    }
    if (url.pathname === "/login/oauth/access_token" && req.method === "POST") {
      const device = this.devices.get(form.device_code ?? "");
      if (form.client_id !== COPILOT_CLIENT_ID || form.grant_type !== "urn:ietf:params:oauth:grant-type:device_code")
        return send(200, { error: "unsupported_grant_type" });
      if (!device) return send(200, { error: "incorrect_device_code" });
      const now = Date.now();
      if (device.lastPoll && now - device.lastPoll < device.interval * 1000) {
        device.interval += 5;
        return send(200, { error: "slow_down", interval: device.interval });
      }
      device.lastPoll = now;
      const answer = this.pollAnswers[device.polls++];
      if (answer === "slow_down") {
        device.interval += 5;
        return send(200, { error: "slow_down", interval: device.interval });
      }
      if (answer) return send(200, { error: answer });
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

  /** The user revoked the app on github.com/settings/applications. */
  revokeAll(): void {
    this.githubTokens.clear();
    this.copilotTokens.clear();
  }
}

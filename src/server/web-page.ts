// The page `harness serve` serves at `/`: one self-contained HTML file (no CDN, works offline),
// its script allowed by hash and allowed to talk only to this server (shared/html.ts).
import { html, pagePolicy, trustedHtml } from "../shared/html.ts";

const SCRIPT = `document.body.dataset.ready = "1";`;

export function servePage(): { body: string; headers: Record<string, string> } {
  const policy = pagePolicy([SCRIPT], { connectSelf: true });
  const body = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${policy}"><title>harness</title></head>
<body><script>${trustedHtml(SCRIPT)}</script></body></html>`;
  return {
    body: body.markup,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": policy.markup,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
      "referrer-policy": "no-referrer",
    },
  };
}

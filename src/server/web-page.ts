// The page `harness serve` serves at `/`: one self-contained HTML file (no CDN, works offline),
// its one script allowed by hash and allowed to talk only to this server (shared/html.ts). The
// token comes in the address's #fragment (never sent to any server), kept in sessionStorage.
import { html, pagePolicy, trustedHtml } from "../shared/html.ts";
import { PAGE_SCRIPT } from "./web-page-script.ts";

const STYLE = `
*{box-sizing:border-box}html,body{margin:0;height:100%}
body{font:15px/1.45 system-ui,sans-serif;display:flex;flex-direction:column;height:100dvh;background:#fafafa;color:#222}
header{display:flex;flex-wrap:wrap;gap:6px;align-items:center;padding:6px 8px;border-bottom:1px solid #ddd;background:#fff}
header select{flex:1 1 12em;min-width:0}header input{flex:1 1 8em;min-width:0}#status{font-size:13px;color:#666}
#more{flex:1 1 100%;font-size:13px}#more[open]{display:flex;flex-wrap:wrap;gap:6px;align-items:center}#more summary{cursor:pointer;color:#555}
#log{flex:1;overflow-y:auto;padding:8px}
.user{background:#e8f0fe;border-radius:8px;padding:6px 10px;margin:8px 0;white-space:pre-wrap}
.reply p,.reply li{margin:4px 0}.reply pre,.result pre,.diff{background:#f0f0f0;padding:6px;overflow-x:auto;font-size:13px}
.reply.cut{opacity:.5}.tool{font-family:monospace;font-size:13px;color:#555;margin:6px 0}
.result summary,.thinking summary{cursor:pointer;font-size:13px;color:#555}.result.error summary{color:#b00}
.diff .add{color:#070}.diff .del{color:#b00}.diff .hunk{color:#06c}
.note{font-size:13px;color:#666;margin:4px 0}.note.error{color:#b00}
#questions:empty{display:none}#questions{max-height:45vh;overflow-y:auto;border-top:2px solid #e90;background:#fff8e6;padding:6px 8px}
.question .summary{font-family:monospace;font-weight:600;word-break:break-all}.question .why{font-size:13px}
.buttons{display:flex;flex-wrap:wrap;gap:6px;margin-top:6px}.buttons button{padding:8px 14px;font-size:15px}
form{display:flex;gap:6px;padding:6px 8px;border-top:1px solid #ddd;background:#fff}
textarea{flex:1;min-width:0;font:inherit;min-height:2.6em;max-height:30vh}
`;

export function servePage(): { body: string; headers: Record<string, string> } {
  const policy = pagePolicy([PAGE_SCRIPT], { connectSelf: true });
  const body = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${policy}"><title>harness</title>
<style>${trustedHtml(STYLE)}</style></head>
<body>
<header><strong>harness</strong><select id="sessions" aria-label="session"></select>
<input id="cwd" placeholder="/folder for a new session" aria-label="folder"><button id="new" type="button">New</button>
<span id="status"></span>
<details id="more"><summary>Model, undo</summary><input id="model" aria-label="model"><button id="switch" type="button">Switch model</button>
<button id="undo" type="button">Undo last turn</button></details></header>
<main id="log" aria-live="polite"></main>
<section id="questions" aria-label="questions"></section>
<form id="prompt-form"><textarea id="prompt" placeholder="Prompt" aria-label="prompt"></textarea>
<button type="submit">Send</button><button id="interrupt" type="button">Stop</button></form>
<script>${trustedHtml(PAGE_SCRIPT)}</script></body></html>`;
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

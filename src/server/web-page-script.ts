// The served page's script (web-page.ts puts it in, allowed by its hash): the sessions, one
// session's events drawn as a transcript (Markdown, tool calls, diffs, thinking folded), its
// questions with allow / deny / always, a prompt box, interrupt, model switch and undo. Text from the session only
// ever becomes text nodes (or escaped before the small Markdown pass), never markup of its own.
// Plain ES2020 in a string: no build step, no CDN; no backticks inside (it is a template here).
export const PAGE_SCRIPT = `"use strict";
const given = new URLSearchParams(location.hash.slice(1)).get("token");
if (given) { sessionStorage.setItem("harness-token", given); history.replaceState(null, "", location.pathname); }
const token = given || sessionStorage.getItem("harness-token") || "";
const $ = (id) => document.getElementById(id);
const log = $("log"), questions = $("questions"), picker = $("sessions"), status = $("status");
let current = null, stop = null, lastId = 0, reply = null, replyText = "", thinking = null;

function api(method, path, body) {
  const headers = { authorization: "Bearer " + token };
  if (body !== undefined) headers["content-type"] = "application/json";
  return fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }).then(async (r) => {
    const value = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(value.error || r.statusText);
    return value;
  });
}
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}
function say(text, className) { add(el("div", "note " + (className || ""), text)); }
function add(node) {
  const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 40;
  log.appendChild(node);
  if (atEnd) log.scrollTop = log.scrollHeight;
  return node;
}
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}
function inline(text) {
  return escapeHtml(text)
    .replace(/\\x60([^\\x60]+)\\x60/g, "<code>$1</code>")
    .replace(/\\*\\*([^*]+)\\*\\*/g, "<strong>$1</strong>")
    .replace(/(^|\\W)\\*([^*]+)\\*(?=\\W|$)/g, "$1<em>$2</em>");
}
function markdown(text) {
  const out = [];
  const parts = text.split(/^\\x60\\x60\\x60[^\\n]*\\n?/m);
  parts.forEach((part, index) => {
    if (index % 2 === 1) { out.push("<pre><code>" + escapeHtml(part) + "</code></pre>"); return; }
    for (const line of part.split("\\n")) {
      const heading = /^(#{1,6}) (.*)$/.exec(line);
      if (heading) out.push("<h4>" + inline(heading[2]) + "</h4>");
      else if (/^\\s*[-*] /.test(line)) out.push("<li>" + inline(line.replace(/^\\s*[-*] /, "")) + "</li>");
      else if (line.trim()) out.push("<p>" + inline(line) + "</p>");
    }
  });
  return out.join("");
}
function diffBlock(diff) {
  const pre = el("pre", "diff");
  for (const line of diff.split("\\n")) {
    const kind = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : "";
    pre.appendChild(el("span", kind, line + "\\n"));
  }
  return pre;
}
function endReply() { reply = null; replyText = ""; thinking = null; }
function handle(event) {
  switch (event.type) {
    case "start": status.textContent = "running"; endReply(); break;
    case "message":
      if (event.message.role === "user") {
        const text = typeof event.message.content === "string" ? event.message.content
          : event.message.content.filter((p) => p.type === "text").map((p) => p.text).join("\\n");
        add(el("div", "user", text));
      }
      if (event.message.role === "assistant") endReply();
      break;
    case "thinking_delta":
      if (!thinking) {
        const box = add(el("details", "thinking"));
        box.appendChild(el("summary", "", "thinking"));
        thinking = box.appendChild(el("div", ""));
      }
      thinking.textContent += event.text;
      break;
    case "text_delta":
      if (!reply) reply = add(el("div", "reply"));
      replyText += event.text;
      reply.innerHTML = markdown(replyText);
      break;
    case "retry": if (event.discardPartial && reply) { reply.classList.add("cut"); endReply(); } break;
    case "tool_start": add(el("div", "tool", "\\u25b8 " + event.summary)); endReply(); break;
    case "tool_end": {
      const box = add(el("details", "result" + (event.isError ? " error" : "")));
      box.appendChild(el("summary", "", (event.summary || event.name) + " (" + event.durationMs + " ms)"));
      if (event.diff) box.appendChild(diffBlock(event.diff));
      box.appendChild(el("pre", "", event.content.slice(0, 20000)));
      if (event.diff) box.open = true;
      break;
    }
    case "question": ask(event); break;
    case "question_answered": {
      const card = document.querySelector('[data-question="' + CSS.escape(event.questionId) + '"]');
      if (card) card.remove();
      say("answered: " + event.answer);
      break;
    }
    case "done":
      status.textContent = event.reason === "stop" ? "idle" : event.reason + (event.error ? ": " + event.error : "");
      endReply();
      break;
    case "model_changed": $("model").value = event.model; say("model: " + event.provider + " " + event.model); break;
    case "undone": say("undid " + event.turns + " turn(s): " + (event.files.join(", ") || "no files")); break;
    case "server_error": say("error: " + event.error, "error"); break;
    case "compaction": say("the conversation was compacted"); break;
    default: break;
  }
}
function ask(event) {
  const card = el("div", "question");
  card.dataset.question = event.questionId;
  card.appendChild(el("div", "summary", event.summary));
  if (event.why) card.appendChild(el("div", "why", "asks because " + event.why));
  if (event.diff) card.appendChild(diffBlock(event.diff));
  const buttons = card.appendChild(el("div", "buttons"));
  const answer = (value) => api("POST", "/api/sessions/" + encodeURIComponent(current) + "/answer", { questionId: event.questionId, answer: value })
    .catch((error) => { card.remove(); say(error.message, "error"); });
  const button = (label, value) => { const b = buttons.appendChild(el("button", value, label)); b.type = "button"; b.onclick = () => answer(value); };
  button("Allow", "yes");
  button("Deny", "no");
  if (event.remember.length > 0 && !event.explicit) button("Always: " + event.remember.join(", "), "always");
  questions.appendChild(card);
}
async function watch(id, signal) {
  while (!signal.aborted) {
    try {
      const r = await fetch("/api/sessions/" + encodeURIComponent(id) + "/events", {
        headers: { authorization: "Bearer " + token, "last-event-id": String(lastId) }, signal });
      if (!r.ok) { say("the stream was refused: " + r.status, "error"); return; }
      const reader = r.body.getReader();
      const decoder = new TextDecoder();
      let buffered = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffered += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffered.indexOf("\\n\\n")) >= 0) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          let id = 0, data = "";
          for (const line of block.split("\\n")) {
            if (line.startsWith("id: ")) id = Number(line.slice(4));
            else if (line.startsWith("data: ")) data += line.slice(6);
          }
          if (!data) continue;
          const event = JSON.parse(data);
          if (event.type === "reset") { say("older events are no longer kept"); continue; }
          lastId = id;
          handle(event);
        }
      }
    } catch (error) {
      if (signal.aborted) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
function open(id) {
  if (stop) stop.abort();
  current = id; lastId = 0; endReply();
  log.replaceChildren(); questions.replaceChildren();
  picker.value = id;
  stop = new AbortController();
  watch(id, stop.signal);
  api("GET", "/api/sessions/" + encodeURIComponent(id)).then((s) => { $("model").value = s.model; }).catch(() => {});
}
async function refresh() {
  const { sessions } = await api("GET", "/api/sessions");
  picker.replaceChildren(...sessions.map((s) => { const o = el("option", "", s.id + "  " + s.cwd + "  " + s.model); o.value = s.id; return o; }));
  if (current) picker.value = current;
  else if (sessions.length > 0) open(sessions[sessions.length - 1].id);
  else status.textContent = "no sessions: give a folder and press New";
}
picker.onchange = () => open(picker.value);
$("new").onclick = () => api("POST", "/api/sessions", { cwd: $("cwd").value }).then((s) => { current = null; return refresh().then(() => open(s.id)); })
  .catch((error) => say(error.message, "error"));
$("prompt-form").onsubmit = (e) => {
  e.preventDefault();
  const text = $("prompt").value.trim();
  if (!text || !current) return;
  api("POST", "/api/sessions/" + encodeURIComponent(current) + "/prompt", { text }).then(() => { $("prompt").value = ""; })
    .catch((error) => say(error.message, "error"));
};
const act = (what, body) => current && api("POST", "/api/sessions/" + encodeURIComponent(current) + "/" + what, body)
  .catch((error) => say(error.message, "error"));
$("switch").onclick = () => { const model = $("model").value.trim(); if (model) act("model", { model }); };
// Undo asks first, as /undo does: the first press arms it (saying what it will do), the second undoes.
const undo = $("undo");
undo.onclick = () => {
  if (undo.dataset.armed !== "yes") { undo.dataset.armed = "yes"; undo.textContent = "Undo it: files and conversation"; return; }
  undo.dataset.armed = ""; undo.textContent = "Undo last turn";
  act("undo", { turns: 1 });
};
$("interrupt").onclick = () => act("interrupt", {});
refresh().catch((error) => { status.textContent = error.message; });
`;

// Usage as the ChatGPT plan reports it: the backend sends, with each reply, how much of each
// rate-limit window is used (openai/codex's `codex-rs` rate-limit header parsing, and its tests:
// `x-codex-primary-used-percent`, `-window-minutes`, `-reset-at` (Unix seconds),
// `-reset-after-seconds`; the same for `secondary`). harness says one line when a window nears its
// limit. *Decision*: at 75, 90 and 95 percent, each once per window and process, as Codex's own
// terminal warns (`RATE_LIMIT_WARNING_THRESHOLDS = [75.0, 90.0, 95.0]` in codex-rs/tui): sooner
// would be noise on every request; later leaves no time to switch. Copilot sends its limits as
// `x-usage-ratelimit-session`, `x-usage-ratelimit-weekly` and its monthly premium-request quota as
// `x-quota-snapshot-premium_models` (or `-premium_interactions`), each a query string whose `rem`
// is the percent remaining and `rst` the reset time (microsoft/vscode's Copilot extension,
// extensions/copilot/src/platform/chat/common/chatQuotaServiceImpl.ts, which reads them the same
// way; the value shape as copilot-api's tests record it: `ent=0&ov=0.0&ovPerm=false&rem=99.6&rst=2026-04-22T14%3A30%3A56Z`).
import type { HeaderLookup } from "../post-json.ts";

const WARN_AT = [75, 90, 95];
/** The highest threshold already said, per window (`primary`, `secondary`). */
const said = new Map<string, number>();

/** A plan's window as its headers report it: percent used, its span's name, seconds to its reset. */
interface WindowUse {
  window: string;
  used: number;
  span: string;
  resetIn: number;
}

/** The line to show for `headers` of a plan's reply, or undefined when no window crossed a threshold. */
export function planLimitNotice(plan: string, headers: HeaderLookup, now = Date.now()): string | undefined {
  const uses =
    plan === "chatgpt" ? chatgptWindows(headers, now) : plan === "copilot" ? copilotWindows(headers, now) : [];
  const lines: string[] = [];
  for (const { window, used, span, resetIn } of uses) {
    const crossed = WARN_AT.filter((at) => used >= at).at(-1);
    const key = `${plan}:${window}`;
    if (crossed === undefined || crossed <= (said.get(key) ?? 0)) continue;
    said.set(key, crossed);
    const reset = Number.isFinite(resetIn) && resetIn >= 0 ? `, resets in ${spanOf(resetIn)}` : "";
    lines.push(`${Math.round(used)}% of the ${span} used${reset}`);
  }
  const name = plan === "chatgpt" ? "ChatGPT" : "Copilot";
  return lines.length > 0 ? `${name} plan: ${lines.join("; ")}` : undefined;
}

function chatgptWindows(headers: HeaderLookup, now: number): WindowUse[] {
  const uses: WindowUse[] = [];
  for (const window of ["primary", "secondary"]) {
    const used = Number(headers.get(`x-codex-${window}-used-percent`) ?? Number.NaN);
    if (!Number.isFinite(used)) continue;
    const number = (name: string) => Number(headers.get(`x-codex-${window}-${name}`) ?? Number.NaN);
    const minutes = number("window-minutes");
    const span = Number.isFinite(minutes) && minutes > 0 ? spanOf(minutes * 60) : window;
    const [resetAt, after] = [number("reset-at"), number("reset-after-seconds")];
    const resetIn = Number.isFinite(after) && after >= 0 ? after : resetAt > 0 ? resetAt - now / 1000 : Number.NaN;
    uses.push({ window, used, span: `${span} limit`, resetIn });
  }
  return uses;
}

const COPILOT_WINDOWS = [
  { window: "session", span: "session limit", headers: ["x-usage-ratelimit-session"] },
  { window: "weekly", span: "weekly limit", headers: ["x-usage-ratelimit-weekly"] },
  {
    window: "premium",
    span: "monthly premium requests",
    headers: ["x-quota-snapshot-premium_models", "x-quota-snapshot-premium_interactions"],
  },
];

function copilotWindows(headers: HeaderLookup, now: number): WindowUse[] {
  const uses: WindowUse[] = [];
  for (const { window, span, headers: names } of COPILOT_WINDOWS) {
    const value = names.map((name) => headers.get(name)).find((found) => found);
    if (!value) continue;
    const fields = new URLSearchParams(value);
    const remaining = Number(fields.get("rem") ?? Number.NaN);
    // `ent=-1` is an unlimited entitlement (the Copilot extension's reading): nothing nears.
    if (!Number.isFinite(remaining) || fields.get("ent") === "-1") continue;
    const resetAt = Date.parse(fields.get("rst") ?? "");
    uses.push({ window, used: 100 - remaining, span, resetIn: (resetAt - now) / 1000 });
  }
  return uses;
}

function spanOf(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  if (minutes >= 2 * 24 * 60) return `${Math.round(minutes / (24 * 60))} days`;
  if (minutes >= 120) return `${Math.round(minutes / 60)} hours`;
  return `${minutes} minutes`;
}

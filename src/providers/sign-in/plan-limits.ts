// Usage as the ChatGPT plan reports it: the backend sends, with each reply, how much of each
// rate-limit window is used (openai/codex's `codex-rs` rate-limit header parsing, and its tests:
// `x-codex-primary-used-percent`, `-window-minutes`, `-reset-at` (Unix seconds),
// `-reset-after-seconds`; the same for `secondary`). harness says one line when a window nears its
// limit. *Decision*: at 75, 90 and 95 percent, each once per window and process, as Codex's own
// terminal warns (`RATE_LIMIT_WARNING_THRESHOLDS = [75.0, 90.0, 95.0]` in codex-rs/tui): sooner
// would be noise on every request; later leaves no time to switch. Copilot's quota is not sent as
// headers we found documented, so nothing is read for it.
import type { HeaderLookup } from "../post-json.ts";

const WARN_AT = [75, 90, 95];
/** The highest threshold already said, per window (`primary`, `secondary`). */
const said = new Map<string, number>();

/** The line to show for `headers` of a ChatGPT reply, or undefined when no window crossed a threshold. */
export function planLimitNotice(headers: HeaderLookup, now = Date.now()): string | undefined {
  const lines: string[] = [];
  for (const window of ["primary", "secondary"]) {
    const used = Number(headers.get(`x-codex-${window}-used-percent`) ?? Number.NaN);
    if (!Number.isFinite(used)) continue;
    const crossed = WARN_AT.filter((at) => used >= at).at(-1);
    if (crossed === undefined || crossed <= (said.get(window) ?? 0)) continue;
    said.set(window, crossed);
    const number = (name: string) => Number(headers.get(`x-codex-${window}-${name}`) ?? Number.NaN);
    const minutes = number("window-minutes");
    const span = Number.isFinite(minutes) && minutes > 0 ? spanOf(minutes * 60) : window;
    const [resetAt, after] = [number("reset-at"), number("reset-after-seconds")];
    const resetIn = Number.isFinite(after) && after >= 0 ? after : resetAt > 0 ? resetAt - now / 1000 : Number.NaN;
    const reset = Number.isFinite(resetIn) && resetIn >= 0 ? `, resets in ${spanOf(resetIn)}` : "";
    lines.push(`${Math.round(used)}% of the ${span} limit used${reset}`);
  }
  return lines.length > 0 ? `ChatGPT plan: ${lines.join("; ")}` : undefined;
}

function spanOf(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  if (minutes >= 2 * 24 * 60) return `${Math.round(minutes / (24 * 60))} days`;
  if (minutes >= 120) return `${Math.round(minutes / 60)} hours`;
  return `${minutes} minutes`;
}

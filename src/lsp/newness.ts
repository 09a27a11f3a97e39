// Which of a file's diagnostics an edit brought: matched by severity, code and message, not by
// line, since an edit moves lines.
import type { Diagnostic } from "./lsp-messages.ts";

/** Splits `after` into those `before` did not have (by severity, code and message: lines move) and the rest. */
export function splitByNewness(
  after: Diagnostic[],
  before: Diagnostic[],
): { fresh: Diagnostic[]; existing: Diagnostic[] } {
  const key = (d: Diagnostic) => `${d.severity ?? 1}\u0000${d.code ?? ""}\u0000${d.message}`;
  const remaining = new Map<string, number>();
  for (const d of before) remaining.set(key(d), (remaining.get(key(d)) ?? 0) + 1);
  const fresh: Diagnostic[] = [];
  const existing: Diagnostic[] = [];
  for (const d of after) {
    const left = remaining.get(key(d)) ?? 0;
    if (left > 0) {
      remaining.set(key(d), left - 1);
      existing.push(d);
    } else fresh.push(d);
  }
  return { fresh, existing };
}

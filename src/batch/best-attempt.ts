// The one rule that picks the best of N attempts at one prompt: `harness --attempts N --pick best`
// (cli/best-of-n.ts) and a batch task's `attempts` (batch/task-attempts.ts) both use it.

/** What the pick compares of an attempt. */
interface AttemptMerits {
  /** It succeeded by its caller's measure (ended done, its test, if any, passed, ...). */
  passed: boolean;
  /** Lines added and removed against where it started. */
  changedLines: number;
  /** USD it spent; unknown counts as nothing. */
  cost?: number;
}

/**
 * *Decision*: the best is a passing attempt with the smallest change (lines added and removed),
 * then the cheapest, then the first: among passing attempts, the smaller diff is the easier one to
 * review and the less likely to carry unrelated edits. None passed: none is picked.
 */
export function bestAttempt<T>(
  attempts: readonly T[],
  merits: (attempt: T, index: number) => AttemptMerits,
): T | undefined {
  const judged = attempts.map((attempt, index) => ({ attempt, ...merits(attempt, index) }));
  return judged
    .filter((one) => one.passed)
    .sort((a, b) => a.changedLines - b.changedLines || (a.cost ?? 0) - (b.cost ?? 0))[0]?.attempt;
}

/**
 * One model request's own abort controller, aborted when the run's signal aborts. The SDKs and
 * their SSE readers each add an abort listener to the signal they are given and never remove it;
 * given the run's long-lived signal, that is one leaked listener per model call. Given this
 * controller's signal instead, those listeners go with the request, and `release()` (in a
 * `finally`) takes our one listener off the run's signal.
 */
export function requestAbort(runSignal: AbortSignal): { controller: AbortController; release(): void } {
  const controller = new AbortController();
  const forward = () => controller.abort(runSignal.reason);
  if (runSignal.aborted) forward();
  else runSignal.addEventListener("abort", forward, { once: true });
  return { controller, release: () => runSignal.removeEventListener("abort", forward) };
}

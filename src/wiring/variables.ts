// The session's limits that environment variables set (tests and CI shorten the backoff with one).

import { MIN_CONTEXT_WINDOW } from "../providers/model-info.ts";
import { parsePositiveInteger } from "../shared/helpers.ts";
import { ConfigError } from "./defaults.ts";

/** HARNESS_CONTEXT_WINDOW, checked as --context-window is; throws a usage ConfigError. */
export function windowFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const value = env.HARNESS_CONTEXT_WINDOW;
  if (value === undefined) return undefined;
  const tokens = parsePositiveInteger(value);
  if (tokens === undefined) throw new ConfigError("HARNESS_CONTEXT_WINDOW takes a number of tokens", { isUsage: true });
  if (tokens < MIN_CONTEXT_WINDOW)
    throw new ConfigError(`HARNESS_CONTEXT_WINDOW takes at least ${MIN_CONTEXT_WINDOW} tokens`, { isUsage: true });
  return tokens;
}

/** Test and CI hook: HARNESS_RETRY_BASE_MS shortens the backoff between retries. */
export function retryPolicyFrom(env: NodeJS.ProcessEnv) {
  const base = Number(env.HARNESS_RETRY_BASE_MS);
  return Number.isFinite(base) && base >= 0 && env.HARNESS_RETRY_BASE_MS
    ? { maxRetries: 4, baseDelayMs: base }
    : undefined;
}

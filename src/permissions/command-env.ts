// The environment the bash tool's commands get: the user's, minus credentials.
import { isCredentialName, redactText } from "../core/redact.ts";

/** Which variables to keep despite their looks, and which more to remove; names or `PREFIX_*` globs. */
export interface EnvFilter {
  passthrough: string[];
  strip: string[];
}

/**
 * A copy of `env` without credentials: variables whose name looks like one (`*_API_KEY`,
 * `*TOKEN*`, `AWS_*`, ...; see isCredentialName), whose value looks like a key (`sk-...`),
 * or that `strip` names. `passthrough` keeps a variable anyway (and wins over `strip`).
 */
export function filterCommandEnv(env: Record<string, string | undefined>, filter: EnvFilter): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const isPassedThrough = filter.passthrough.some((pattern) => nameMatches(pattern, name));
    const isSecret = isCredentialName(name) || redactText(value) !== value || filter.strip.some((pattern) => nameMatches(pattern, name));
    if (isPassedThrough || !isSecret) kept[name] = value;
  }
  return kept;
}

function nameMatches(pattern: string, name: string): boolean {
  return pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

// `$HARNESS_HOME/config.json` for a session: read by settings/config-file.ts (its one reader and
// schema), then checked against the built-in providers, which this layer owns.
import { join } from "node:path";
import { type HarnessConfig, readConfigFile } from "../settings/config-file.ts";
import { SettingsError } from "../settings/settings-file.ts";
import { ConfigError, PRESETS, stateDir } from "./defaults.ts";

export type { HarnessConfig };

export function configPath(env: NodeJS.ProcessEnv): string {
  return join(stateDir(env), "config.json");
}

/**
 * Reads and validates config.json; a missing file is an empty config. A broken one is a usage
 * error naming the file and the field (`.../config.json: providers.myllm.api: expected ...`).
 */
export function loadConfigFile(env: NodeJS.ProcessEnv): HarnessConfig {
  const path = configPath(env);
  let config: HarnessConfig;
  try {
    config = readConfigFile(path);
  } catch (error) {
    if (error instanceof SettingsError) throw new ConfigError(error.message, { isUsage: true });
    throw error;
  }
  for (const [name, entry] of Object.entries(config.providers ?? {})) {
    if (PRESETS[name]) continue;
    for (const field of ["api", "baseUrl"] as const) {
      if (!entry[field])
        throw new ConfigError(`${path}: providers.${name}.${field}: required for a custom provider`, { isUsage: true });
    }
  }
  return config;
}

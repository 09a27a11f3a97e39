// The one door from a session to its telemetry: the environment is read here (cheaply), and the
// exporter is imported only when it asks for one, so a session without telemetry loads nothing more.
import { VERSION } from "../shared/version.ts";
import type { SessionTelemetry } from "./session-telemetry.ts";
import { telemetryConfig } from "./telemetry-config.ts";

export async function startTelemetry(
  env: NodeJS.ProcessEnv,
  warn: (message: string) => void,
  sessionId: () => string,
): Promise<SessionTelemetry | undefined> {
  const config = telemetryConfig(env, warn);
  if (!config) return undefined;
  const { startSessionTelemetry } = await import("./session-telemetry.ts");
  return startSessionTelemetry(config, { sessionId, version: VERSION }, warn);
}

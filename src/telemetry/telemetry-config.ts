// OpenTelemetry export, configured by the standard OTEL_* variables (docs/telemetry.md). This
// file is all a session loads when telemetry is off: it reads the environment and nothing else;
// the exporter (session-telemetry.ts and the OTLP encoders) is imported only when configured.
//
// Decision: export needs an opt-in, HARNESS_ENABLE_TELEMETRY=1 (or Claude Code's own
// CLAUDE_CODE_ENABLE_TELEMETRY=1, read the same), as Claude Code, Gemini CLI and Codex each gate
// theirs. OTEL_EXPORTER_OTLP_ENDPOINT is often set machine-wide for other programs (auto-
// instrumented containers, a developer's shell); a coding agent's commands, paths and models
// should reach a collector only when its user asked for that.
//
// The three protocols are spoken: http/protobuf (the specification's default), http/json, and grpc
// (Claude Code's documented example, over node:http2; otlp-export.ts). Sources for the variables: https://opentelemetry.io/docs/specs/otel/protocol/exporter/
// and https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/.

type OtlpProtocol = "http/protobuf" | "http/json" | "grpc";
export type Signal = "traces" | "metrics" | "logs";

/** Where one signal goes: an OTLP/HTTP endpoint, or stderr (`console`). */
export type SignalExport =
  | { kind: "otlp"; url: string; protocol: OtlpProtocol; headers: Record<string, string>; timeoutMs: number }
  | { kind: "console" };

export interface TelemetryConfig {
  exports: Partial<Record<Signal, SignalExport>>;
  /** service.name and OTEL_RESOURCE_ATTRIBUTES, as given (service.name wins over the attributes' own). */
  resource: Record<string, string>;
  /** OTEL_LOG_USER_PROMPTS=1: log records carry the prompt's text (redacted), not only its length. */
  logPrompts: boolean;
  /** OTEL_LOG_TOOL_DETAILS=1: tool records and spans carry the call's arguments and result (redacted). */
  logToolDetails: boolean;
  /** How often spans and logs are sent while a session runs (OTEL_BSP_SCHEDULE_DELAY, default 5 s). */
  scheduleDelayMs: number;
  /** How often metrics are sent while a session runs (OTEL_METRIC_EXPORT_INTERVAL, default 60 s). */
  metricIntervalMs: number;
}

/** The exit's flush waits at most this long, whatever OTEL_EXPORTER_OTLP_TIMEOUT says. */
export const EXIT_FLUSH_LIMIT_MS = 3000;

const SIGNALS: readonly Signal[] = ["traces", "metrics", "logs"];
const SAID = new Set<string>(); // each notice once a process (ACP and serve build many sessions)

const isOn = (value: string | undefined) => value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());

/** The export the environment asks for, or undefined (then nothing more is loaded). */
export function telemetryConfig(env: NodeJS.ProcessEnv, warn: (message: string) => void): TelemetryConfig | undefined {
  if (isOn(env.OTEL_SDK_DISABLED)) return undefined;
  if (!isOn(env.HARNESS_ENABLE_TELEMETRY) && !isOn(env.CLAUDE_CODE_ENABLE_TELEMETRY)) return undefined;
  const say = (message: string) => {
    if (SAID.has(message)) return;
    SAID.add(message);
    warn(message);
  };
  const exports: TelemetryConfig["exports"] = {};
  for (const signal of SIGNALS) {
    const chosen = signalExport(env, signal, say);
    if (chosen) exports[signal] = chosen;
  }
  if (Object.keys(exports).length === 0) return undefined;
  const resource = { ...pairs(env.OTEL_RESOURCE_ATTRIBUTES, "OTEL_RESOURCE_ATTRIBUTES", say) };
  resource["service.name"] = env.OTEL_SERVICE_NAME?.trim() || resource["service.name"] || "harness";
  return {
    exports,
    resource,
    logPrompts: isOn(env.OTEL_LOG_USER_PROMPTS),
    logToolDetails: isOn(env.OTEL_LOG_TOOL_DETAILS),
    scheduleDelayMs: milliseconds(env, "OTEL_BSP_SCHEDULE_DELAY", 5000, say),
    metricIntervalMs: milliseconds(env, "OTEL_METRIC_EXPORT_INTERVAL", 60_000, say),
  };
}

function signalExport(
  env: NodeJS.ProcessEnv,
  signal: Signal,
  say: (message: string) => void,
): SignalExport | undefined {
  const name = `OTEL_${signal.toUpperCase()}_EXPORTER`;
  // Several exporters may be listed; the first one harness speaks is used, the others are named.
  const listed = (env[name] ?? "otlp").split(",").map((word) => word.trim().toLowerCase());
  const chosen = listed.find((word) => word === "otlp" || word === "console" || word === "none") ?? "unsupported";
  for (const word of listed) {
    if (word !== chosen && word !== "") say(`${name}=${word} is not supported (otlp, console, none): not used`);
  }
  if (chosen === "none" || chosen === "unsupported") return undefined;
  if (chosen === "console") return { kind: "console" };
  const upper = signal.toUpperCase();
  const protocolName = env[`OTEL_EXPORTER_OTLP_${upper}_PROTOCOL`]
    ? `OTEL_EXPORTER_OTLP_${upper}_PROTOCOL`
    : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const protocol = (env[protocolName] ?? "http/protobuf").trim();
  if (protocol !== "http/protobuf" && protocol !== "http/json" && protocol !== "grpc") {
    say(`${protocolName}=${protocol} is not supported (http/protobuf, http/json, grpc): ${signal} are not exported`);
    return undefined;
  }
  const url = endpoint(env, signal, protocol);
  if (!/^https?:\/\//i.test(url)) {
    say(`the OTLP endpoint for ${signal} is not an http(s) URL (${url}): ${signal} are not exported`);
    return undefined;
  }
  const headers = {
    ...pairs(env.OTEL_EXPORTER_OTLP_HEADERS, "OTEL_EXPORTER_OTLP_HEADERS", say),
    ...pairs(env[`OTEL_EXPORTER_OTLP_${upper}_HEADERS`], `OTEL_EXPORTER_OTLP_${upper}_HEADERS`, say),
  };
  const timeoutName = env[`OTEL_EXPORTER_OTLP_${upper}_TIMEOUT`]
    ? `OTEL_EXPORTER_OTLP_${upper}_TIMEOUT`
    : "OTEL_EXPORTER_OTLP_TIMEOUT";
  return { kind: "otlp", url, protocol, headers, timeoutMs: milliseconds(env, timeoutName, 10_000, say) };
}

/**
 * The signal's own endpoint as given, or the shared one with `/v1/<signal>` appended (the
 * specification's rule for OTLP/HTTP); gRPC takes either as the server's address (its path is the service's).
 */
function endpoint(env: NodeJS.ProcessEnv, signal: Signal, protocol: OtlpProtocol): string {
  const own = env[`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_ENDPOINT`]?.trim();
  if (own) return own;
  const base =
    env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() ||
    (protocol === "grpc" ? "http://localhost:4317" : "http://localhost:4318");
  return protocol === "grpc" ? base : `${base.replace(/\/+$/, "")}/v1/${signal}`;
}

/** `key=value,key2=value2` with percent-encoded values (W3C Baggage's form, as the specification says). */
function pairs(text: string | undefined, name: string, say: (message: string) => void): Record<string, string> {
  const result: Record<string, string> = {};
  for (const item of (text ?? "").split(",")) {
    if (item.trim() === "") continue;
    const at = item.indexOf("=");
    const key = at > 0 ? item.slice(0, at).trim() : "";
    if (!key) {
      say(`${name}: an entry is not key=value: the entry is not used`);
      continue;
    }
    try {
      result[key] = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      say(`${name}: the value of ${key} is not percent-encoded correctly: not used`);
    }
  }
  return result;
}

function milliseconds(env: NodeJS.ProcessEnv, name: string, fallback: number, say: (message: string) => void): number {
  const text = env[name]?.trim();
  if (!text) return fallback;
  const value = Number(text);
  if (Number.isFinite(value) && value > 0) return value;
  say(`${name}=${text} is not a positive number of milliseconds: using ${fallback}`);
  return fallback;
}

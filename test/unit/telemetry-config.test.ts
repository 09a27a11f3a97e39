// How the OTEL_* variables are read (src/telemetry/telemetry-config.ts; docs/telemetry.md): in-process,
// no export. The export itself is test/cli/telemetry-cli.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { telemetryConfig } from "../../src/telemetry/telemetry-config.ts";

function read(env: Record<string, string>) {
  const said: string[] = [];
  const config = telemetryConfig(env, (message) => said.push(message));
  return { config, said };
}

test("telemetry is off without the opt-in, and off with OTEL_SDK_DISABLED whatever else is set", () => {
  assert.equal(read({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }).config, undefined);
  assert.equal(read({ HARNESS_ENABLE_TELEMETRY: "1", OTEL_SDK_DISABLED: "true" }).config, undefined);
  assert.equal(
    read({
      CLAUDE_CODE_ENABLE_TELEMETRY: "1",
      OTEL_TRACES_EXPORTER: "none",
      OTEL_METRICS_EXPORTER: "none",
      OTEL_LOGS_EXPORTER: "none",
    }).config,
    undefined,
  );
  assert.ok(read({ CLAUDE_CODE_ENABLE_TELEMETRY: "1" }).config, "Claude Code's switch is read the same");
});

test("endpoints, protocol, headers, resource and timeouts follow the specification's rules", () => {
  const { config, said } = read({
    HARNESS_ENABLE_TELEMETRY: "1",
    OTEL_EXPORTER_OTLP_ENDPOINT: "https://collector.example:4318/base/",
    OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: "http://logs.example/custom",
    OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "http/json",
    OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Bearer%20abc,x-team=core",
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-team=traces",
    OTEL_EXPORTER_OTLP_TIMEOUT: "2500",
    OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=dev,service.name=from-attributes",
  });
  assert.deepEqual(said, []);
  assert.deepEqual(config?.exports.traces, {
    kind: "otlp",
    url: "https://collector.example:4318/base/v1/traces",
    protocol: "http/protobuf",
    headers: { Authorization: "Bearer abc", "x-team": "traces" },
    timeoutMs: 2500,
  });
  assert.equal(config?.exports.logs?.kind === "otlp" && config.exports.logs.url, "http://logs.example/custom");
  assert.equal(config?.exports.metrics?.kind === "otlp" && config.exports.metrics.protocol, "http/json");
  assert.deepEqual(config?.resource, { "deployment.environment": "dev", "service.name": "from-attributes" });
  assert.equal(config?.logPrompts, false);
  assert.equal(config?.logToolDetails, false);
  assert.equal(
    read({ HARNESS_ENABLE_TELEMETRY: "1", OTEL_SERVICE_NAME: "svc" }).config?.resource["service.name"],
    "svc",
  );
});

test("a value harness does not take is said once, naming the variable, and that part is not exported", () => {
  const env = {
    HARNESS_ENABLE_TELEMETRY: "1",
    OTEL_METRICS_EXPORTER: "prometheus",
    OTEL_LOGS_EXPORTER: "console",
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/xml",
    OTEL_BSP_SCHEDULE_DELAY: "soon",
    OTEL_EXPORTER_OTLP_HEADERS: "novalue,Authorization=%ZZsecret",
  };
  const first = read(env);
  assert.deepEqual(Object.keys(first.config?.exports ?? {}), ["logs"]);
  assert.deepEqual(first.config?.exports.logs, { kind: "console" });
  assert.equal(first.config?.scheduleDelayMs, 5000);
  for (const pattern of [
    /OTEL_METRICS_EXPORTER=prometheus/,
    /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http\/xml/,
    /OTEL_BSP_SCHEDULE_DELAY=soon/,
  ]) {
    assert.equal(first.said.filter((line) => pattern.test(line)).length, 1, first.said.join("\n"));
  }
  assert.ok(!first.said.join("\n").includes("secret"), "a header's value is never shown");
  assert.deepEqual(read(env).said, [], "said once a process, not once a session");
});

// OpenTelemetry export of a one-shot (docs/telemetry.md): a receiver on 127.0.0.1 gets its trace
// (session -> invoke_agent -> chat model call, and execute_tool bash), its metrics and its log
// records, over http/protobuf, http/json and gRPC: one CLI run each.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli } from "../support/helpers.ts";
import { type OtlpExport, startOtlpGrpcReceiver, startOtlpReceiver } from "../support/otlp-receiver.ts";

const serve = fakeServerPerTest();
const receiver = await startOtlpReceiver();
const grpcReceiver = await startOtlpGrpcReceiver();
after(() => Promise.all([receiver.close(), grpcReceiver.close()]));

const KEY = "sk-test-key-abcdef0123456789";
const PROMPT = `count the files PROMPT-CANARY with ${KEY}`;

/** Attributes as a plain object: { key: value } with OTLP's AnyValue unwrapped. */
const attrs = (list: Array<{ key: string; value: Record<string, unknown> }> = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, Object.values(value)[0]]));

async function oneShot(protocol: string, extra: Record<string, string>, to = receiver) {
  const fake = await serve([
    { reply: { toolCalls: [{ id: "call_1", name: "bash", arguments: { command: "echo TOOL-CANARY" } }] } },
    { reply: { text: "done" } },
  ]);
  const before = to.exports.length;
  const result = await runCli([...fakeFlags(fake), "-y", "-p", PROMPT], {
    env: cleanEnv({
      OPENAI_API_KEY: KEY,
      HARNESS_ENABLE_TELEMETRY: "1",
      OTEL_EXPORTER_OTLP_ENDPOINT: `${to.url}/`,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20otlp-t0ken",
      OTEL_SERVICE_NAME: "harness-under-test",
      OTEL_RESOURCE_ATTRIBUTES: "team=core,service.name=ignored",
      ...extra,
    }),
  });
  assert.equal(result.code, 0, result.stderr);
  const got = to.exports.slice(before);
  const only = (path: string): OtlpExport[] => got.filter((item) => item.path === path);
  return { result, got, only };
}

function checkTrace(exports: OtlpExport[]) {
  assert.ok(exports.length > 0, "no traces arrived");
  const resource = attrs(exports[0].body.resourceSpans[0].resource.attributes);
  assert.equal(resource["service.name"], "harness-under-test");
  assert.equal(resource.team, "core");
  const spans = exports.flatMap((item) => item.body.resourceSpans[0].scopeSpans[0].spans);
  const named = (name: string) => spans.find((span: any) => span.name === name);
  const session = named("harness.session");
  const run = named("invoke_agent harness");
  const chats = spans.filter((span: any) => span.name === "chat fake-model");
  const tool = named("execute_tool bash");
  assert.ok(session && run && tool && chats.length === 2, spans.map((span: any) => span.name).join(", "));
  assert.equal(new Set(spans.map((span: any) => span.traceId)).size, 1, "one trace");
  assert.equal(session.parentSpanId ?? "", "");
  assert.equal(run.parentSpanId, session.spanId);
  for (const chat of chats) assert.equal(chat.parentSpanId, run.spanId);
  assert.equal(tool.parentSpanId, run.spanId);
  assert.equal(chats[0].kind, 3); // CLIENT
  const chat = attrs(chats[0].attributes);
  assert.equal(chat["gen_ai.operation.name"], "chat");
  assert.equal(chat["gen_ai.provider.name"], "openai");
  assert.equal(chat["gen_ai.system"], "openai");
  assert.equal(chat["gen_ai.request.model"], "fake-model");
  assert.equal(chat["gen_ai.response.model"], "fake-model");
  assert.equal(chat["gen_ai.usage.input_tokens"], "10");
  assert.equal(chat["gen_ai.usage.output_tokens"], "5");
  assert.deepEqual(chat["gen_ai.response.finish_reasons"], { values: [{ stringValue: "tool_use" }] });
  const toolAttrs = attrs(tool.attributes);
  assert.equal(toolAttrs["gen_ai.operation.name"], "execute_tool");
  assert.equal(toolAttrs["gen_ai.tool.name"], "bash");
  assert.equal(toolAttrs["gen_ai.tool.call.id"], "call_1");
  assert.ok(BigInt(tool.endTimeUnixNano) >= BigInt(tool.startTimeUnixNano));
  assert.ok(BigInt(session.endTimeUnixNano) >= BigInt(run.endTimeUnixNano));
}

test("a one-shot's trace, metrics and logs arrive over http/protobuf, without prompt or tool contents", async () => {
  const { result, got, only } = await oneShot("http/protobuf", { OTEL_LOGS_EXPORTER: "prometheus,otlp" });
  assert.ok(got.every((item) => item.contentType === "application/x-protobuf"));
  assert.ok(got.every((item) => item.headers.authorization === "Bearer otlp-t0ken"));
  checkTrace(only("/v1/traces"));
  const metrics = only("/v1/metrics").flatMap((item) => item.body.resourceMetrics[0].scopeMetrics[0].metrics);
  const tokens = metrics.find((metric: any) => metric.name === "harness.token.usage");
  const byType = Object.fromEntries(
    tokens.sum.dataPoints.map((point: any) => [attrs(point.attributes).type, point.asInt]),
  );
  assert.deepEqual(byType, { input: "20", output: "10" }); // two calls of 10 in, 5 out
  const calls = metrics.find((metric: any) => metric.name === "harness.tool.calls").sum.dataPoints;
  assert.deepEqual(attrs(calls[0].attributes), { "gen_ai.tool.name": "bash", decision: "accept", success: true });
  const histogram = metrics.find((metric: any) => metric.name === "gen_ai.client.token.usage").histogram;
  assert.equal(histogram.aggregationTemporality, 2);
  assert.equal(
    histogram.dataPoints.reduce((sum: number, point: any) => sum + Number(point.count), 0),
    4,
  );
  assert.ok(metrics.some((metric: any) => metric.name === "gen_ai.client.operation.duration"));
  const logs = only("/v1/logs").flatMap((item) => item.body.resourceLogs[0].scopeLogs[0].logRecords);
  const names = logs.map((log: any) => log.eventName);
  for (const name of ["harness.user_prompt", "harness.tool_decision", "harness.tool_result", "harness.api_request"]) {
    assert.ok(names.includes(name), `${name} in ${names.join(", ")}`);
  }
  const prompt = attrs(logs.find((log: any) => log.eventName === "harness.user_prompt").attributes);
  assert.ok(Number(prompt.prompt_length) > 20 && prompt.prompt === undefined);
  const everything = JSON.stringify(got.map((item) => item.body));
  assert.ok(
    !everything.includes("PROMPT-CANARY") && !everything.includes("TOOL-CANARY"),
    "contents are off by default",
  );
  assert.equal(result.stderr.match(/OTEL_LOGS_EXPORTER=prometheus is not supported/g)?.length, 1, result.stderr);
});

test("over http/json with prompts and tool details asked for: redacted; a silent collector holds the exit only to its timeout", async () => {
  const { result, only } = await oneShot("http/json", {
    OTEL_LOG_USER_PROMPTS: "1",
    OTEL_LOG_TOOL_DETAILS: "1",
    OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${receiver.url}/hang/v1/metrics`,
    OTEL_EXPORTER_OTLP_METRICS_TIMEOUT: "300",
  });
  const traces = only("/v1/traces");
  assert.ok(traces.every((item) => item.contentType === "application/json"));
  checkTrace(traces);
  const logs = only("/v1/logs").flatMap((item) => item.body.resourceLogs[0].scopeLogs[0].logRecords);
  const prompt = attrs(logs.find((log: any) => log.eventName === "harness.user_prompt").attributes);
  assert.match(String(prompt.prompt), /^count the files PROMPT-CANARY with /);
  assert.ok(
    !JSON.stringify(logs).includes(KEY),
    "the key is redacted, as everywhere past the session's one redaction point",
  );
  const toolResult = attrs(logs.find((log: any) => log.eventName === "harness.tool_result").attributes);
  assert.match(String(toolResult["gen_ai.tool.call.result"]), /TOOL-CANARY/);
  assert.match(
    result.stderr,
    /telemetry: metrics not delivered to http:\/\/127\.0\.0\.1:\d+\/hang\/v1\/metrics: no answer in time/,
  );
  assert.doesNotMatch(result.stderr, /otlp-t0ken/);
});

test("over gRPC (Claude Code's documented protocol): the same trace, metrics and logs, framed for gRPC", async () => {
  const { result, got, only } = await oneShot("grpc", {}, grpcReceiver);
  assert.doesNotMatch(result.stderr, /not delivered/); // every call ended with grpc-status 0
  assert.ok(got.every((item) => item.contentType === "application/grpc"));
  assert.ok(got.every((item) => item.headers.authorization === "Bearer otlp-t0ken"));
  checkTrace(only("/v1/traces"));
  const metrics = only("/v1/metrics").flatMap((item) => item.body.resourceMetrics[0].scopeMetrics[0].metrics);
  assert.ok(metrics.some((metric: any) => metric.name === "harness.token.usage"));
  assert.ok(only("/v1/logs").length > 0);
});

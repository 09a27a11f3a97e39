// An OTLP/HTTP receiver on 127.0.0.1 for the telemetry tests: it answers every export with 200
// (a path under /hang never gets an answer)
// and keeps what it got, decoded. OTLP/JSON is parsed as it is; a protobuf body is read by the
// tiny decoder below into the same JSON shape (OTLP/JSON's field names, ids in hex, 64-bit
// numbers as strings), from its own table of opentelemetry-proto v1's field numbers
// (https://github.com/open-telemetry/opentelemetry-proto/tree/main/opentelemetry/proto), written
// apart from src/telemetry/otlp-protobuf.ts so that a wrong number in one shows up against the other.
import { createServer } from "node:http";
import { createServer as createHttp2Server } from "node:http2";
import type { AddressInfo } from "node:net";

export interface OtlpExport {
  path: string;
  contentType: string;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

export async function startOtlpReceiver(): Promise<{ url: string; exports: OtlpExport[]; close(): Promise<void> }> {
  const exports: OtlpExport[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.url?.startsWith("/hang")) return; // a collector that never answers (the exit's bound)
      const raw = Buffer.concat(chunks);
      const contentType = request.headers["content-type"] ?? "";
      const path = request.url ?? "";
      const root = ROOTS[path];
      const body =
        contentType === "application/json" ? JSON.parse(raw.toString("utf8")) : root ? decode(raw, root) : raw;
      exports.push({ path, contentType, body, headers: request.headers });
      response.writeHead(200, { "content-type": contentType }).end(contentType === "application/json" ? "{}" : "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const GRPC_ROOTS: Record<string, string> = {
  "/opentelemetry.proto.collector.trace.v1.TraceService/Export": "/v1/traces",
  "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export": "/v1/metrics",
  "/opentelemetry.proto.collector.logs.v1.LogsService/Export": "/v1/logs",
};

/**
 * The same over gRPC (plain HTTP/2, as a collector's insecure port): each unary Export call's one
 * message, its frame checked (no compression, the length it says), kept under its OTLP/HTTP path.
 */
export async function startOtlpGrpcReceiver(): Promise<{ url: string; exports: OtlpExport[]; close(): Promise<void> }> {
  const exports: OtlpExport[] = [];
  const server = createHttp2Server();
  server.on("stream", (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => {
      const raw = Buffer.concat(chunks);
      const path = GRPC_ROOTS[String(headers[":path"])] ?? String(headers[":path"]);
      const isFramed = raw[0] === 0 && raw.readUInt32BE(1) === raw.length - 5;
      const body = isFramed && ROOTS[path] ? decode(raw.subarray(5), ROOTS[path]) : raw;
      exports.push({
        path,
        contentType: String(headers["content-type"]),
        body,
        headers: headers as OtlpExport["headers"],
      });
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": isFramed ? "0" : "13" }));
      stream.end(Buffer.alloc(5)); // an empty Export*ServiceResponse, framed
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

type FieldType = "string" | "hex" | "uint" | "fixed64" | "double" | "packedFixed64" | "packedDouble" | `.${string}`;
/** field number -> [JSON name, type, repeated] */
type Schema = Record<number, [string, FieldType, boolean?]>;

const SCHEMAS: Record<string, Schema> = {
  AnyValue: {
    1: ["stringValue", "string"],
    2: ["boolValue", "uint"],
    3: ["intValue", "uint"],
    4: ["doubleValue", "double"],
    5: ["arrayValue", ".ArrayValue"],
  },
  ArrayValue: { 1: ["values", ".AnyValue", true] },
  KeyValue: { 1: ["key", "string"], 2: ["value", ".AnyValue"] },
  Resource: { 1: ["attributes", ".KeyValue", true] },
  Scope: { 1: ["name", "string"], 2: ["version", "string"] },
  TracesRequest: { 1: ["resourceSpans", ".ResourceSpans", true] },
  ResourceSpans: { 1: ["resource", ".Resource"], 2: ["scopeSpans", ".ScopeSpans", true] },
  ScopeSpans: { 1: ["scope", ".Scope"], 2: ["spans", ".Span", true] },
  Span: {
    1: ["traceId", "hex"],
    2: ["spanId", "hex"],
    4: ["parentSpanId", "hex"],
    5: ["name", "string"],
    6: ["kind", "uint"],
    7: ["startTimeUnixNano", "fixed64"],
    8: ["endTimeUnixNano", "fixed64"],
    9: ["attributes", ".KeyValue", true],
    15: ["status", ".Status"],
  },
  Status: { 2: ["message", "string"], 3: ["code", "uint"] },
  MetricsRequest: { 1: ["resourceMetrics", ".ResourceMetrics", true] },
  ResourceMetrics: { 1: ["resource", ".Resource"], 2: ["scopeMetrics", ".ScopeMetrics", true] },
  ScopeMetrics: { 1: ["scope", ".Scope"], 2: ["metrics", ".Metric", true] },
  Metric: {
    1: ["name", "string"],
    2: ["description", "string"],
    3: ["unit", "string"],
    7: ["sum", ".Sum"],
    9: ["histogram", ".Histogram"],
  },
  Sum: {
    1: ["dataPoints", ".NumberDataPoint", true],
    2: ["aggregationTemporality", "uint"],
    3: ["isMonotonic", "uint"],
  },
  NumberDataPoint: {
    2: ["startTimeUnixNano", "fixed64"],
    3: ["timeUnixNano", "fixed64"],
    4: ["asDouble", "double"],
    6: ["asInt", "fixed64"],
    7: ["attributes", ".KeyValue", true],
  },
  Histogram: { 1: ["dataPoints", ".HistogramDataPoint", true], 2: ["aggregationTemporality", "uint"] },
  HistogramDataPoint: {
    2: ["startTimeUnixNano", "fixed64"],
    3: ["timeUnixNano", "fixed64"],
    4: ["count", "fixed64"],
    5: ["sum", "double"],
    6: ["bucketCounts", "packedFixed64"],
    7: ["explicitBounds", "packedDouble"],
    9: ["attributes", ".KeyValue", true],
    11: ["min", "double"],
    12: ["max", "double"],
  },
  LogsRequest: { 1: ["resourceLogs", ".ResourceLogs", true] },
  ResourceLogs: { 1: ["resource", ".Resource"], 2: ["scopeLogs", ".ScopeLogs", true] },
  ScopeLogs: { 1: ["scope", ".Scope"], 2: ["logRecords", ".LogRecord", true] },
  LogRecord: {
    1: ["timeUnixNano", "fixed64"],
    2: ["severityNumber", "uint"],
    3: ["severityText", "string"],
    5: ["body", ".AnyValue"],
    6: ["attributes", ".KeyValue", true],
    9: ["traceId", "hex"],
    10: ["spanId", "hex"],
    11: ["observedTimeUnixNano", "fixed64"],
    12: ["eventName", "string"],
  },
};

const ROOTS: Record<string, string> = {
  "/v1/traces": "TracesRequest",
  "/v1/metrics": "MetricsRequest",
  "/v1/logs": "LogsRequest",
};

/** Decodes `bytes` as message `type`; a field the table does not know, or a wrong wire type, throws. */
export function decode(bytes: Buffer, type: string): any {
  const schema = SCHEMAS[type];
  const result: Record<string, any> = {};
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = bytes[at++];
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
  };
  while (at < bytes.length) {
    const key = Number(varint());
    const [field, wire] = [key >> 3, key & 7];
    const entry = schema[field];
    if (!entry) throw new Error(`${type}: unknown field ${field}`);
    const [name, fieldType, repeated] = entry;
    const expected = fieldType === "uint" ? 0 : fieldType === "fixed64" || fieldType === "double" ? 1 : 2;
    if (wire !== expected) throw new Error(`${type}.${name}: wire type ${wire}, expected ${expected}`);
    let value: any;
    if (wire === 0) value = fieldType === "uint" && name.startsWith("bool") ? varint() === 1n : Number(varint());
    else if (wire === 1) {
      value = fieldType === "double" ? bytes.readDoubleLE(at) : String(bytes.readBigUInt64LE(at));
      at += 8;
    } else {
      const length = Number(varint());
      const slice = bytes.subarray(at, at + length);
      at += length;
      if (fieldType === "string") value = slice.toString("utf8");
      else if (fieldType === "hex") value = slice.toString("hex");
      else if (fieldType === "packedFixed64")
        value = Array.from({ length: length / 8 }, (_, i) => String(slice.readBigUInt64LE(i * 8)));
      else if (fieldType === "packedDouble")
        value = Array.from({ length: length / 8 }, (_, i) => slice.readDoubleLE(i * 8));
      else value = decode(slice, fieldType.slice(1));
    }
    if (name === "intValue") value = String(value);
    if (repeated) (result[name] ??= []).push(value);
    else result[name] = value;
  }
  return result;
}

// OTLP/HTTP's binary body: the Export*ServiceRequest messages in protobuf's wire format, written
// by hand. Decision: no protobuf library (an OTLP SDK and its generated code are hundreds of KB
// for the ~30 fields written here). The field numbers are opentelemetry-proto v1's
// (opentelemetry/proto/{common,resource,trace,metrics,logs}/v1/*.proto), named beside each one,
// and test/support/otlp-receiver.ts reads them back with the same table written independently.
import type { Attributes, AttributeValue, ExportHeader, LogData, MetricData, SpanData } from "./telemetry-data.ts";

const VARINT = 0;
const FIXED64 = 1;
const LENGTH = 2;

/** One message being written: its fields in order, each already in wire format. */
class Message {
  private readonly parts: Buffer[] = [];

  private key(field: number, wire: number) {
    this.varint(BigInt((field << 3) | wire));
  }

  private varint(value: bigint) {
    let rest = BigInt.asUintN(64, value);
    const bytes: number[] = [];
    do {
      const low = Number(rest & 0x7fn);
      rest >>= 7n;
      bytes.push(rest > 0n ? low | 0x80 : low);
    } while (rest > 0n);
    this.parts.push(Buffer.from(bytes));
  }

  uint(field: number, value: number | bigint): this {
    this.key(field, VARINT);
    this.varint(BigInt(value));
    return this;
  }

  bool(field: number, value: boolean): this {
    return this.uint(field, value ? 1 : 0);
  }

  fixed64(field: number, value: bigint): this {
    this.key(field, FIXED64);
    const buffer = Buffer.alloc(8);
    buffer.writeBigUInt64LE(BigInt.asUintN(64, value));
    this.parts.push(buffer);
    return this;
  }

  double(field: number, value: number): this {
    this.key(field, FIXED64);
    const buffer = Buffer.alloc(8);
    buffer.writeDoubleLE(value);
    this.parts.push(buffer);
    return this;
  }

  bytes(field: number, value: Buffer): this {
    this.key(field, LENGTH);
    this.varint(BigInt(value.length));
    this.parts.push(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, Buffer.from(value, "utf8"));
  }

  message(field: number, value: Message): this {
    return this.bytes(field, value.finish());
  }

  /** A packed repeated field of fixed-width numbers (proto3 packs repeated scalars). */
  packed(field: number, values: readonly number[], write: (buffer: Buffer, value: number, at: number) => void): this {
    const buffer = Buffer.alloc(values.length * 8);
    for (const [index, value] of values.entries()) write(buffer, value, index * 8);
    return this.bytes(field, buffer);
  }

  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}

// common.proto AnyValue: string_value 1, bool_value 2, int_value 3, double_value 4, array_value 5 (ArrayValue: values 1).
function anyValue(value: AttributeValue): Message {
  const message = new Message();
  if (typeof value === "string") return message.string(1, value);
  if (typeof value === "boolean") return message.bool(2, value);
  if (typeof value === "number") return Number.isInteger(value) ? message.uint(3, value) : message.double(4, value);
  if ("double" in value) return message.double(4, value.double);
  const array = new Message();
  for (const item of value) array.message(1, new Message().string(1, item));
  return message.message(5, array);
}

// common.proto KeyValue: key 1, value 2.
function addAttributes(message: Message, field: number, attributes: Attributes): Message {
  for (const [key, value] of Object.entries(attributes)) {
    message.message(field, new Message().string(1, key).message(2, anyValue(value)));
  }
  return message;
}

// resource.proto Resource: attributes 1. common.proto InstrumentationScope: name 1, version 2.
// Resource{Spans,Metrics,Logs}: resource 1, scope_{spans,metrics,logs} 2; Scope*: scope 1, items 2.
function request(header: ExportHeader, items: Message[]): Buffer {
  const scoped = new Message().message(1, new Message().string(1, header.scope.name).string(2, header.scope.version));
  for (const item of items) scoped.message(2, item);
  const resource = addAttributes(new Message(), 1, header.resource);
  const resourceItems = new Message().message(1, resource).message(2, scoped);
  // Export{Trace,Metrics,Logs}ServiceRequest: resource_{spans,metrics,logs} 1.
  return new Message().message(1, resourceItems).finish();
}

const hexBytes = (hex: string) => Buffer.from(hex, "hex");

// trace.proto Span: trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, start_time_unix_nano 7,
// end_time_unix_nano 8, attributes 9, status 15 (Status: message 2, code 3).
export function tracesProtobuf(header: ExportHeader, spans: readonly SpanData[]): Buffer {
  return request(
    header,
    spans.map((span) => {
      const message = new Message().bytes(1, hexBytes(span.traceId)).bytes(2, hexBytes(span.spanId));
      if (span.parentSpanId) message.bytes(4, hexBytes(span.parentSpanId));
      message.string(5, span.name).uint(6, span.kind).fixed64(7, span.startNs).fixed64(8, span.endNs);
      addAttributes(message, 9, span.attributes);
      if (span.status) {
        const status = new Message();
        if (span.status.message) status.string(2, span.status.message);
        message.message(15, status.uint(3, span.status.code));
      }
      return message;
    }),
  );
}

// metrics.proto Metric: name 1, description 2, unit 3, sum 7, histogram 9.
// Sum: data_points 1, aggregation_temporality 2 (CUMULATIVE = 2), is_monotonic 3.
// NumberDataPoint: start_time_unix_nano 2, time_unix_nano 3, as_double 4, as_int 6 (sfixed64), attributes 7.
// Histogram: data_points 1, aggregation_temporality 2. HistogramDataPoint: start_time_unix_nano 2,
// time_unix_nano 3, count 4 (fixed64), sum 5, bucket_counts 6 (packed fixed64), explicit_bounds 7
// (packed double), attributes 9, min 11, max 12.
export function metricsProtobuf(header: ExportHeader, metrics: readonly MetricData[]): Buffer {
  return request(
    header,
    metrics.map((metric) => {
      const message = new Message().string(1, metric.name).string(2, metric.description).string(3, metric.unit);
      const data = new Message();
      for (const point of metric.points) {
        const pointMessage = new Message().fixed64(2, metric.startNs).fixed64(3, metric.timeNs);
        if (metric.kind === "sum") {
          const value = (point as { value: number }).value;
          if (metric.isInt) pointMessage.fixed64(6, BigInt(value));
          else pointMessage.double(4, value);
          data.message(1, addAttributes(pointMessage, 7, point.attributes));
        } else {
          const histogram = point as Extract<MetricData, { kind: "histogram" }>["points"][number];
          pointMessage.fixed64(4, BigInt(histogram.count)).double(5, histogram.sum);
          pointMessage.packed(6, histogram.bucketCounts, (buffer, value, at) =>
            buffer.writeBigUInt64LE(BigInt(value), at),
          );
          pointMessage.packed(7, metric.bounds, (buffer, value, at) => buffer.writeDoubleLE(value, at));
          addAttributes(pointMessage, 9, histogram.attributes);
          data.message(1, pointMessage.double(11, histogram.min).double(12, histogram.max));
        }
      }
      data.uint(2, 2);
      if (metric.kind === "sum") data.bool(3, true);
      return message.message(metric.kind === "sum" ? 7 : 9, data);
    }),
  );
}

// logs.proto LogRecord: time_unix_nano 1, severity_number 2, severity_text 3, body 5, attributes 6,
// trace_id 9, span_id 10, observed_time_unix_nano 11, event_name 12.
export function logsProtobuf(header: ExportHeader, logs: readonly LogData[]): Buffer {
  return request(
    header,
    logs.map((log) => {
      const message = new Message().fixed64(1, log.timeNs).uint(2, log.severityNumber).string(3, log.severityText);
      message.message(5, anyValue(log.body));
      addAttributes(message, 6, log.attributes);
      if (log.traceId) message.bytes(9, hexBytes(log.traceId));
      if (log.spanId) message.bytes(10, hexBytes(log.spanId));
      return message.fixed64(11, log.timeNs).string(12, log.eventName);
    }),
  );
}

// OTLP/JSON: the protobuf messages in protobuf's JSON mapping, with OTLP's exceptions (trace and
// span ids as hex, enums as numbers): https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding.
// 64-bit integers are decimal strings, as the mapping writes them.
import type { Attributes, AttributeValue, ExportHeader, LogData, MetricData, SpanData } from "./telemetry-data.ts";

type Json = Record<string, unknown>;

function anyValue(value: AttributeValue): Json {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  if ("double" in value) return { doubleValue: value.double };
  return { arrayValue: { values: value.map((item) => ({ stringValue: item })) } };
}

const keyValues = (attributes: Attributes) =>
  Object.entries(attributes).map(([key, value]) => ({ key, value: anyValue(value) }));

const resourceOf = (header: ExportHeader) => ({ attributes: keyValues(header.resource) });

export function tracesJson(header: ExportHeader, spans: readonly SpanData[]): Json {
  return {
    resourceSpans: [
      {
        resource: resourceOf(header),
        scopeSpans: [
          {
            scope: header.scope,
            spans: spans.map((span) => ({
              traceId: span.traceId,
              spanId: span.spanId,
              ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
              name: span.name,
              kind: span.kind,
              startTimeUnixNano: String(span.startNs),
              endTimeUnixNano: String(span.endNs),
              attributes: keyValues(span.attributes),
              ...(span.status ? { status: span.status } : {}),
            })),
          },
        ],
      },
    ],
  };
}

export function metricsJson(header: ExportHeader, metrics: readonly MetricData[]): Json {
  const metricOf = (metric: MetricData): Json => {
    const times = { startTimeUnixNano: String(metric.startNs), timeUnixNano: String(metric.timeNs) };
    const base = { name: metric.name, description: metric.description, unit: metric.unit };
    if (metric.kind === "sum") {
      const dataPoints = metric.points.map((point) => ({
        attributes: keyValues(point.attributes),
        ...times,
        ...(metric.isInt ? { asInt: String(point.value) } : { asDouble: point.value }),
      }));
      return { ...base, sum: { dataPoints, aggregationTemporality: 2, isMonotonic: true } };
    }
    const dataPoints = metric.points.map((point) => ({
      attributes: keyValues(point.attributes),
      ...times,
      count: String(point.count),
      sum: point.sum,
      bucketCounts: point.bucketCounts.map(String),
      explicitBounds: metric.bounds,
      min: point.min,
      max: point.max,
    }));
    return { ...base, histogram: { dataPoints, aggregationTemporality: 2 } };
  };
  return {
    resourceMetrics: [
      { resource: resourceOf(header), scopeMetrics: [{ scope: header.scope, metrics: metrics.map(metricOf) }] },
    ],
  };
}

export function logsJson(header: ExportHeader, logs: readonly LogData[]): Json {
  return {
    resourceLogs: [
      {
        resource: resourceOf(header),
        scopeLogs: [
          {
            scope: header.scope,
            logRecords: logs.map((log) => ({
              timeUnixNano: String(log.timeNs),
              observedTimeUnixNano: String(log.timeNs),
              severityNumber: log.severityNumber,
              severityText: log.severityText,
              body: { stringValue: log.body },
              attributes: keyValues(log.attributes),
              ...(log.traceId ? { traceId: log.traceId } : {}),
              ...(log.spanId ? { spanId: log.spanId } : {}),
              eventName: log.eventName,
            })),
          },
        ],
      },
    ],
  };
}

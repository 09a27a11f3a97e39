// What a session's telemetry holds before it is encoded: spans, metrics and log records in the
// OTLP data model (https://github.com/open-telemetry/opentelemetry-proto, v1), kept neutral so one
// encoder writes them as OTLP/JSON and another as protobuf.
import { randomBytes } from "node:crypto";

/** An attribute's value: an integer, a double (`{ double }`, so 2.0 stays a double), a string, a flag or strings. */
export type AttributeValue = string | number | boolean | { double: number } | readonly string[];
export type Attributes = Record<string, AttributeValue>;

/** OTLP's SpanKind values. */
export const SPAN_KIND = { internal: 1, client: 3 } as const;
/** OTLP's Status.code values. */
export const STATUS_CODE = { ok: 1, error: 2 } as const;

export interface SpanData {
  traceId: string; // 32 hex digits
  spanId: string; // 16 hex digits
  parentSpanId?: string;
  name: string;
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Attributes;
  status?: { code: number; message?: string };
}

interface SumPoint {
  attributes: Attributes;
  value: number;
}

interface HistogramPoint {
  attributes: Attributes;
  count: number;
  sum: number;
  min: number;
  max: number;
  bucketCounts: number[];
}

export type MetricData =
  | {
      name: string;
      description: string;
      unit: string;
      kind: "sum";
      isInt: boolean;
      startNs: bigint;
      timeNs: bigint;
      points: SumPoint[];
    }
  | {
      name: string;
      description: string;
      unit: string;
      kind: "histogram";
      bounds: readonly number[];
      startNs: bigint;
      timeNs: bigint;
      points: HistogramPoint[];
    };

export interface LogData {
  timeNs: bigint;
  eventName: string;
  severityNumber: number; // 9 INFO, 17 ERROR (OTLP's SeverityNumber)
  severityText: string;
  body: string;
  attributes: Attributes;
  traceId?: string;
  spanId?: string;
}

/** What every export carries: the resource and the instrumentation scope. */
export interface ExportHeader {
  resource: Attributes;
  scope: { name: string; version: string };
}

/** Now, in nanoseconds since the epoch, to the microsecond (a double holds that exactly; not nanoseconds). */
export const nowNs = (): bigint => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000)) * 1000n;

export const newTraceId = (): string => randomBytes(16).toString("hex");
export const newSpanId = (): string => randomBytes(8).toString("hex");

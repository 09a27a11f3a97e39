// Sends one signal's batches: OTLP/HTTP POSTs (https://opentelemetry.io/docs/specs/otlp/#otlphttp)
// or lines on stderr (`console`). A batch that cannot be delivered is dropped and said once per
// signal (telemetry never stops or slows a session: no retry queue). Every request can be
// aborted, so the exit's flush ends at its bound even against a collector that never answers.
// Decision: the collector is reached directly, not through HTTPS_PROXY (as the OpenTelemetry
// SDKs' default HTTP agents do); docs/telemetry.md says so.
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { exportOverGrpc } from "./otlp-grpc.ts";
import { logsJson, metricsJson, tracesJson } from "./otlp-json.ts";
import { logsProtobuf, metricsProtobuf, tracesProtobuf } from "./otlp-protobuf.ts";
import type { Signal, SignalExport } from "./telemetry-config.ts";
import type { ExportHeader, LogData, MetricData, SpanData } from "./telemetry-data.ts";

export type SignalItems = { traces: SpanData[]; metrics: MetricData[]; logs: LogData[] };

const ENCODERS = {
  traces: { json: tracesJson, protobuf: tracesProtobuf },
  metrics: { json: metricsJson, protobuf: metricsProtobuf },
  logs: { json: logsJson, protobuf: logsProtobuf },
} as const;

export class SignalSender<S extends Signal> {
  private readonly inFlight = new Set<AbortController>();
  private hasFailed = false;

  constructor(
    private readonly signal: S,
    private readonly target: SignalExport,
    private readonly header: ExportHeader,
    private readonly warn: (message: string) => void,
  ) {}

  /** Sends `items` (nothing when empty); resolves when delivered, refused or given up on, never rejects. */
  async send(items: SignalItems[S]): Promise<void> {
    if (items.length === 0) return;
    const encoders = ENCODERS[this.signal] as {
      json: (header: ExportHeader, items: SignalItems[S]) => unknown;
      protobuf: (header: ExportHeader, items: SignalItems[S]) => Buffer;
    };
    if (this.target.kind === "console") {
      process.stderr.write(`${JSON.stringify(encoders.json(this.header, items))}\n`);
      return;
    }
    const target = this.target;
    const failure = await this.bounded(target.timeoutMs, (abort) => {
      if (target.protocol === "grpc") {
        return exportOverGrpc(target.url, this.signal, encoders.protobuf(this.header, items), target.headers, abort);
      }
      const isJson = target.protocol === "http/json";
      const body = isJson
        ? Buffer.from(JSON.stringify(encoders.json(this.header, items)))
        : encoders.protobuf(this.header, items);
      return post(target, body, isJson ? "application/json" : "application/x-protobuf", abort);
    });
    if (failure && !this.hasFailed) {
      this.hasFailed = true;
      this.warn(`telemetry: ${this.signal} not delivered to ${shownUrl(target.url)}: ${failure} (said once)`);
    }
  }

  /** Ends every request still under way (the exit's bound has passed). */
  abort(): void {
    for (const controller of this.inFlight) controller.abort();
  }

  /** Runs one export that ends at its timeout or at `abort()`, whichever comes first. */
  private async bounded(
    timeoutMs: number,
    run: (abort: AbortSignal) => Promise<string | undefined>,
  ): Promise<string | undefined> {
    const controller = new AbortController();
    this.inFlight.add(controller);
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    timer.unref();
    try {
      return await run(controller.signal);
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(controller);
    }
  }
}

/** One OTLP/HTTP POST; resolves to undefined on a 2xx, else why not. Never rejects. */
function post(
  target: Extract<SignalExport, { kind: "otlp" }>,
  body: Buffer,
  type: string,
  abort: AbortSignal,
): Promise<string | undefined> {
  const url = new URL(target.url);
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<string | undefined>((resolve) => {
    const sent = send(
      url,
      {
        method: "POST",
        signal: abort,
        headers: { ...target.headers, "content-type": type, "content-length": body.length },
      },
      (response) => {
        response.resume(); // the answer's body (a partial success) is not read
        response.on("end", () => {
          const status = response.statusCode ?? 0;
          resolve(status >= 200 && status < 300 ? undefined : `HTTP ${status}`);
        });
        response.on("error", (error) => resolve(error.message));
      },
    );
    sent.on("error", (error: NodeJS.ErrnoException) =>
      resolve(abort.aborted ? "no answer in time" : (error.code ?? error.message)),
    );
    sent.end(body);
  });
}

/** The endpoint without credentials or query (a token may ride in either). */
function shownUrl(text: string): string {
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return "the configured endpoint";
  }
}

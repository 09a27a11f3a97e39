// Sends one signal's batches: OTLP/HTTP POSTs (https://opentelemetry.io/docs/specs/otlp/#otlphttp)
// or lines on stderr (`console`). A batch that cannot be delivered is dropped and said once per
// signal (telemetry never stops or slows a session: no retry queue). Every request can be
// aborted, so the exit's flush ends at its bound even against a collector that never answers.
// Decision: the collector is reached directly, not through HTTPS_PROXY (as the OpenTelemetry
// SDKs' default HTTP agents do); docs/telemetry.md says so.
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
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
    const { protocol } = this.target;
    const body =
      protocol === "http/json"
        ? Buffer.from(JSON.stringify(encoders.json(this.header, items)))
        : encoders.protobuf(this.header, items);
    const type = protocol === "http/json" ? "application/json" : "application/x-protobuf";
    const failure = await this.post(body, type);
    if (failure && !this.hasFailed) {
      this.hasFailed = true;
      this.warn(`telemetry: ${this.signal} not delivered to ${shownUrl(this.target.url)}: ${failure} (said once)`);
    }
  }

  /** Ends every request still under way (the exit's bound has passed). */
  abort(): void {
    for (const controller of this.inFlight) controller.abort();
  }

  private post(body: Buffer, type: string): Promise<string | undefined> {
    const target = this.target as Extract<SignalExport, { kind: "otlp" }>;
    const controller = new AbortController();
    this.inFlight.add(controller);
    const timer = setTimeout(() => controller.abort(), target.timeoutMs);
    timer.unref();
    const url = new URL(target.url);
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise<string | undefined>((resolve) => {
      const sent = send(
        url,
        {
          method: "POST",
          signal: controller.signal,
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
        resolve(controller.signal.aborted ? "no answer in time" : (error.code ?? error.message)),
      );
      sent.end(body);
    }).finally(() => {
      clearTimeout(timer);
      this.inFlight.delete(controller);
    });
  }
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

// OTLP over gRPC (https://opentelemetry.io/docs/specs/otlp/#otlpgrpc): one unary call to the
// signal's Export method over HTTP/2, the protobuf body framed as gRPC frames it (a compression
// flag byte, then the length as 4 bytes big-endian: https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md).
// An http:// endpoint is plain HTTP/2 (the collector's insecure default), https:// is TLS.
import { connect } from "node:http2";
import type { Signal } from "./telemetry-config.ts";

const METHODS: Record<Signal, string> = {
  traces: "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
  metrics: "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export",
  logs: "/opentelemetry.proto.collector.logs.v1.LogsService/Export",
};

/** Sends one export; resolves to undefined when the server said OK, else why not. Never rejects. */
export function exportOverGrpc(
  url: string,
  signal: Signal,
  message: Buffer,
  headers: Record<string, string>,
  abort: AbortSignal,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (failure: string | undefined) => {
      if (settled) return;
      settled = true;
      session.destroy();
      resolve(failure);
    };
    const session = connect(new URL(url).origin);
    session.on("error", (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
    abort.addEventListener("abort", () => done("no answer in time"), { once: true });
    const lowered = Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
    const stream = session.request({
      ...lowered,
      ":method": "POST",
      ":path": METHODS[signal],
      "content-type": "application/grpc",
      te: "trailers",
    });
    let status: string | undefined;
    const grpcStatus = (fields: Record<string, unknown>) => {
      if (fields["grpc-status"] !== undefined) status = String(fields["grpc-status"]);
    };
    stream.on("response", (fields) => {
      if (fields[":status"] !== 200) done(`HTTP ${fields[":status"]}`);
      grpcStatus(fields); // a trailers-only answer carries it here
    });
    stream.on("trailers", grpcStatus);
    stream.on("error", (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
    stream.on("close", () => done(status === "0" ? undefined : `gRPC status ${status ?? "missing"}`));
    stream.resume(); // the answer's message (a partial success) is not read
    const frame = Buffer.alloc(5);
    frame.writeUInt32BE(message.length, 1);
    stream.end(Buffer.concat([frame, message]));
  });
}

// JSON-RPC 2.0 over a language server's stdio, framed as the LSP base protocol says
// (https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#baseProtocol):
// a `Content-Length: N` header, a blank line, N bytes of UTF-8 JSON. Written here rather than taken
// from vscode-jsonrpc: the part a client needs is this one small file, and every bound (message
// size, buffered bytes, a request's wait) is ours to set.
import type { Readable, Writable } from "node:stream";

/** A message larger than this (or a header without a length) ends the connection: a flooding server is cut off. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** Handles a request the server sends the client (`workspace/configuration`); its answer is sent back. */
type ServerRequestHandler = (method: string, params: unknown) => unknown;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** One connection: requests with a bounded wait, notifications both ways, and the server's own requests answered. */
export class JsonRpcConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private buffer = Buffer.alloc(0);
  private closedBecause: string | undefined;
  private readonly notificationHandlers: Array<(method: string, params: unknown) => void> = [];

  constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly answerRequest: ServerRequestHandler,
    private readonly onClose: (reason: string) => void,
  ) {
    input.on("data", (chunk: Buffer) => this.receive(chunk));
    input.on("end", () => this.close("the server closed its output"));
    input.on("error", (error) => this.close(`reading from the server failed: ${error.message}`));
    output.on("error", (error) => this.close(`writing to the server failed: ${error.message}`));
  }

  onNotification(handler: (method: string, params: unknown) => void): void {
    this.notificationHandlers.push(handler);
  }

  /** Sends a request; rejects after `timeoutMs`, on the signal, or when the connection ends. */
  request(method: string, params: unknown, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
    if (this.closedBecause) return Promise.reject(new Error(this.closedBecause));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        this.pending.delete(id);
        signal?.removeEventListener("abort", onAbort);
      };
      const giveUp = (why: string) => {
        finish();
        this.send({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id } });
        reject(new Error(why));
      };
      const onAbort = () => giveUp(`${method} was interrupted`);
      const timer = setTimeout(() => giveUp(`${method} got no answer within ${timeoutMs} ms`), timeoutMs);
      timer.unref();
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, {
        resolve: (value) => {
          finish();
          resolve(value);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
      });
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: "2.0", method, params });
  }

  /** Ends the connection: every waiting request is rejected with `reason`. */
  close(reason: string): void {
    if (this.closedBecause) return;
    this.closedBecause = reason;
    for (const entry of this.pending.values()) entry.reject(new Error(reason));
    this.pending.clear();
    this.buffer = Buffer.alloc(0);
    this.onClose(reason);
  }

  get isClosed(): boolean {
    return this.closedBecause !== undefined;
  }

  private send(message: object): void {
    if (this.closedBecause || this.output.destroyed) return;
    const body = Buffer.from(JSON.stringify(message), "utf8");
    this.output.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]));
  }

  private receive(chunk: Buffer): void {
    if (this.closedBecause) return;
    this.buffer = Buffer.concat([this.buffer, chunk]);
    while (!this.closedBecause) {
      const headerEnd = this.buffer.indexOf("\r\n\r\n");
      if (headerEnd < 0) {
        if (this.buffer.length > 8192) this.close("the server sent a header without an end");
        return;
      }
      const header = this.buffer.subarray(0, headerEnd).toString("ascii");
      const length = Number(/^content-length:\s*(\d+)\s*$/im.exec(header)?.[1] ?? Number.NaN);
      if (!Number.isSafeInteger(length) || length > MAX_MESSAGE_BYTES) {
        return this.close(`the server sent a message without a usable Content-Length (${header.slice(0, 80)})`);
      }
      if (this.buffer.length < headerEnd + 4 + length) return;
      const body = this.buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString("utf8");
      this.buffer = this.buffer.subarray(headerEnd + 4 + length);
      let message: { id?: number | string; method?: string; params?: unknown; result?: unknown; error?: unknown };
      try {
        message = JSON.parse(body);
      } catch {
        return this.close("the server sent a message that is not JSON");
      }
      this.dispatch(message);
    }
  }

  private dispatch(message: {
    id?: number | string;
    method?: string;
    params?: unknown;
    result?: unknown;
    error?: unknown;
  }): void {
    if (message.method !== undefined && message.id !== undefined) {
      let result: unknown;
      try {
        result = this.answerRequest(message.method, message.params);
      } catch (error) {
        const text = error instanceof Error ? error.message : String(error);
        return this.send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: text } });
      }
      return this.send({ jsonrpc: "2.0", id: message.id, result: result ?? null });
    }
    if (message.method !== undefined) {
      for (const handler of this.notificationHandlers) handler(message.method, message.params);
      return;
    }
    const entry = typeof message.id === "number" ? this.pending.get(message.id) : undefined;
    if (!entry) return;
    if (message.error !== undefined) {
      const error = message.error as { message?: string };
      entry.reject(new Error(typeof error.message === "string" ? error.message : JSON.stringify(message.error)));
    } else entry.resolve(message.result);
  }
}

// A scripted fake LLM server on 127.0.0.1. It speaks each wire format the harness uses
// (chosen by request path), records every request, checks on every request that each tool
// call has exactly one result, and fails loudly when its script runs out.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { anthropicFormat } from "./anthropic-format.ts";
import { FakeThreads, type ThreadTurn } from "./anthropic-threads.ts";
import { geminiFormat } from "./gemini-format.ts";
import { openaiFormat } from "./openai-format.ts";
import type { Persona } from "./personas.ts";
import { responsesFormat } from "./responses-format.ts";
import { FakeResponseStore, type StoredTurn } from "./responses-store.ts";

/** A reply in neutral terms; each wire format renders it its own way. */
export interface ReplySpec {
  text?: string;
  reasoning?: string;
  /** `extra`: wire fields on the call (Gemini's `extra_content` on chat completions, `thoughtSignature` natively). */
  toolCalls?: Array<{
    id?: string;
    name: string;
    arguments: string | Record<string, unknown>;
    extra?: Record<string, unknown>;
  }>;
  /** Chat completions: `reasoning_details` entries sent with the reply (OpenRouter). */
  reasoningDetails?: Array<Record<string, unknown>>;
  /** Anthropic: the thinking block's signature; Responses: the reasoning's encrypted content (default: derived from the reasoning). */
  signature?: string;
  /** Wire-level stop reason; defaults to the format's "tool calls" or "stop" value. */
  finishReason?: string;
  /** Format-specific usage object; `null` sends none. */
  usage?: Record<string, unknown> | null;
  /** Characters per streamed piece of text and of tool arguments (default 7). */
  chunkSize?: number;
  /** Pause between streamed events, ms. */
  delayMs?: number;
  /** The reply's id (Anthropic `msg_...`, Responses `resp_...`); the fake sets it for a threaded or stored request. */
  messageId?: string;
}

/** One step of the script: what to answer to the next request. */
export type ScriptStep =
  /** A streamed reply; `headers` go with it (a plan's rate-limit headers). */
  | { reply: ReplySpec; headers?: Record<string, string> }
  /** The reply as one plain JSON body, as servers that ignore `stream: true` do. */
  | { json: ReplySpec }
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** A verbatim body (recorded fixtures); `sliceBytes` writes it in flushed slices of 1..n bytes, cutting anywhere (even inside a UTF-8 character). */
  | { raw: string; contentType?: string; status?: number; sliceBytes?: number }
  /** Streams the first `afterEvents` events of a reply, then drops the connection. */
  | { cut: ReplySpec; afterEvents: number }
  /** Never answers (until the client goes away). */
  | { hang: true }
  /** Streams the first `afterEvents` events of a reply, then goes silent (until the client goes away). */
  | { stall: ReplySpec; afterEvents: number }
  /**
   * A huge or endless reply: text events of `piece` repeated until `bytes` are written (then the
   * reply ends properly) or the client goes away. Written as fast as the client reads.
   */
  | { flood: { piece: string; bytes: number } }
  /** A reply sent `bytesPerWrite` bytes at a time every `intervalMs`: never silent, never quick. */
  | { trickle: ReplySpec; bytesPerWrite: number; intervalMs: number }
  | ((request: RecordedRequest) => ScriptStep | Promise<ScriptStep>);

/** A step as it is answered: a function step has been called for its answer. */
export type FixedStep = Exclude<ScriptStep, (request: RecordedRequest) => unknown>;

/**
 * A high surrogate escape with no low one after it, or a low one with no high one before it. The
 * backslash before it must start an escape: `\\ud83c` is an escaped backslash and the text
 * `ud83c` (a file that holds the six characters `\ud83c`), which every JSON parser accepts.
 */
const LONE_SURROGATE_ESCAPE =
  /(?<=(?:^|[^\\])(?:\\\\)*)(?:\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f][0-9a-f]{2})|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2})/i;

export interface RecordedRequest {
  method: string;
  path: string;
  /** The path with its query (`?alt=sse`). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  format: string;
  receivedAt: number;
  /** The body's size in bytes, as uploaded. */
  bytes: number;
  /** A threaded or stored request (anthropic-threads.ts, responses-store.ts): whether it created or continued. */
  thread?: "create" | "continue";
  /** What reached the model: the body, or for a continued thread the thread's messages and the new ones. */
  conversation: any;
  /** When the answer was fully sent (for measuring the client's own time between calls). */
  answeredAt?: number;
}

/** A wire format the server can speak. */
export interface WireFormat {
  name: string;
  /** The SSE events of a reply, each already framed (`data: ...\n\n`). */
  streamEvents(reply: ReplySpec): string[];
  /** The reply as one non-streamed JSON body. */
  jsonBody(reply: ReplySpec): unknown;
  /** An error body in this API's shape. */
  errorBody(status: number, message: string): unknown;
  /** Problems with a request: tool calls without exactly one result, and the like. */
  validate(body: any): string[];
}

const FORMATS: ReadonlyArray<{ match: RegExp; format: WireFormat }> = [
  { match: /\/chat\/completions$/, format: openaiFormat },
  { match: /\/v1\/messages$/, format: anthropicFormat },
  { match: /\/responses$/, format: responsesFormat },
  { match: /:streamGenerateContent$/, format: geminiFormat },
];

export class FakeLLM {
  readonly requests: RecordedRequest[] = [];
  /** Protocol violations and script overruns; a test asserts this is empty. */
  readonly errors: string[] = [];
  private readonly script: ScriptStep[];
  private server: Server | undefined;
  url = "";
  /** Context-window probes seen (`GET /props`, `POST /api/show`), answered 404 and not counted as requests. */
  readonly windowProbes: string[] = [];
  /** How long the probes' answers take; when each was sent. */
  windowProbeDelayMs = 0;
  readonly windowProbesAnsweredAt: number[] = [];
  /** Model ids answered to `GET .../models` (OpenAI and Anthropic shape at once); unset = 404. */
  models: string[] | undefined;
  /**
   * A strict persona (personas.ts): requests the real service refuses are refused with its real
   * error body (and noted in `errors`), and replies carry the signatures that service issues.
   */
  persona: Persona | undefined;
  /** TCP connections the server has accepted (its 'connection' events): a kept-alive session opens one. */
  connections = 0;
  /** Anthropic's message threads (anthropic-threads.ts), with their clock. */
  readonly threads = new FakeThreads();
  /** OpenAI's stored responses (responses-store.ts), with their clock. */
  readonly stored = new FakeResponseStore();

  constructor(script: ScriptStep[]) {
    this.script = [...script];
  }

  /** OpenAI-style base URL (`.../v1`). */
  get baseUrl(): string {
    return `${this.url}/v1`;
  }

  /** Steps not yet used. */
  get remaining(): number {
    return this.script.length;
  }

  push(...steps: ScriptStep[]): void {
    this.script.push(...steps);
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on("connection", () => this.connections++);
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = (req.url ?? "").split("?")[0];
    // The CLI asks a local server for its context window (llama.cpp, Ollama); this one is neither,
    // says so as they would, and keeps the probes out of `requests` so scripts need not expect them.
    if (/\/(props|api\/show)$/.test(path)) {
      this.windowProbes.push(`${req.method} ${path}`);
      if (this.windowProbeDelayMs > 0) await sleep(this.windowProbeDelayMs);
      this.windowProbesAnsweredAt.push(now());
      return send(res, 404, { error: "not found" });
    }
    const format = FORMATS.find((entry) => entry.match.test(path))?.format;
    let body: any = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      this.errors.push(`request ${this.requests.length + 1} to ${path}: body is not JSON`);
    }
    const request: RecordedRequest = {
      method: req.method ?? "",
      path,
      url: req.url ?? "",
      headers: req.headers,
      body,
      format: format?.name ?? "unknown",
      receivedAt: now(),
      bytes: Buffer.byteLength(raw),
      conversation: body,
    };
    this.requests.push(request);
    // Strict JSON parsers refuse half of a surrogate pair (JSON.stringify writes a lone one as
    // \udXXX) with a 400, for this and every later request of the session:
    // https://github.com/anthropics/claude-code/issues/3277
    if (LONE_SURROGATE_ESCAPE.test(raw)) {
      this.errors.push(`request ${this.requests.length}: the body holds a lone surrogate`);
      return send(res, 400, format?.errorBody(400, "The request body is not valid JSON: no low surrogate in string"));
    }
    if (req.method === "GET" && /\/models$/.test(path) && this.models) return send(res, 200, modelList(this.models));
    if (!format) {
      this.errors.push(`request ${this.requests.length} to unknown path ${path}`);
      return send(res, 404, { error: { message: `fake LLM: no format for ${path}` } });
    }
    const turn =
      format === anthropicFormat
        ? this.threads.open(body, req.headers)
        : format === responsesFormat
          ? this.stored.open(body)
          : undefined;
    // A refused continue is the API's answer, not a protocol error of the client's.
    if (turn && "status" in turn) return send(res, turn.status, turn.body);
    if (turn) [request.thread, request.conversation] = [turn.kind, turn.conversation];
    for (const problem of format.validate(request.conversation))
      this.errors.push(`request ${this.requests.length}: ${problem}`);
    const refusal = this.persona?.check(request.conversation, request);
    if (refusal) {
      turn?.abandon();
      this.errors.push(`request ${this.requests.length}: ${this.persona?.name} refuses it: ${refusal.rule}`);
      return send(res, refusal.status, refusal.body);
    }

    let step = this.script.shift();
    if (!step) {
      turn?.abandon();
      this.errors.push(`request ${this.requests.length}: the script ran out`);
      return send(res, 500, format.errorBody(500, "fake LLM: the script ran out"));
    }
    if (typeof step === "function") {
      try {
        step = await step(request);
      } catch (error) {
        // A function step that cannot answer (no script for this conversation) is a script error.
        turn?.abandon();
        this.errors.push(`request ${this.requests.length}: ${(error as Error).message}`);
        return send(res, 500, format.errorBody(500, `fake LLM: ${(error as Error).message}`));
      }
    }
    const fixed = withMessageId(
      this.persona ? this.persona.decorate(step as FixedStep, request) : (step as FixedStep),
      turn?.messageId,
    );
    await this.answer(fixed, format, res);
    if (turn) settleTurn(turn, fixed, res, format);
    request.answeredAt = now();
  }

  private async answer(step: FixedStep, format: WireFormat, res: ServerResponse): Promise<void> {
    if ("hang" in step) return; // the client's abort or timeout ends it
    if ("status" in step && !("raw" in step)) {
      return send(
        res,
        step.status,
        step.body ?? format.errorBody(step.status, `fake error ${step.status}`),
        step.headers,
      );
    }
    if ("raw" in step) {
      res.writeHead(step.status ?? 200, { "content-type": step.contentType ?? "text/event-stream" });
      if (!step.sliceBytes) return void res.end(step.raw);
      const bytes = Buffer.from(step.raw);
      let seed = bytes.length; // deterministic slices, so a failure replays the same way
      for (let start = 0, size = 0; start < bytes.length && !res.destroyed; start += size) {
        seed = (seed * 48271 + 1) % 2147483647;
        size = 1 + (seed % step.sliceBytes);
        res.write(bytes.subarray(start, start + size));
        await new Promise((resolve) => setImmediate(resolve)); // flush: one write, one chunk
      }
      return void res.end();
    }
    if ("json" in step) return send(res, 200, format.jsonBody(step.json));
    if ("flood" in step) return flood(res, format, step.flood.piece, step.flood.bytes);
    if ("trickle" in step)
      return trickle(res, format.streamEvents(step.trickle).join(""), step.bytesPerWrite, step.intervalMs);
    const reply = "reply" in step ? step.reply : "cut" in step ? step.cut : step.stall;
    const events = format.streamEvents(reply);
    const limit = "cut" in step || "stall" in step ? step.afterEvents : events.length;
    const extra = "reply" in step ? step.headers : undefined;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...extra });
    let isGone = false;
    // The response's close, not the request's: the request closes as soon as its body is read.
    res.on("close", () => (isGone = true));
    for (const event of events.slice(0, limit)) {
      if (isGone) return;
      res.write(event);
      if (reply.delayMs) await sleep(reply.delayMs);
    }
    if ("cut" in step) return void res.socket?.destroy();
    if ("stall" in step) return; // silent until the client's timeout ends it
    res.end();
  }
}

/** A threaded reply carries the id the next request continues from. */
function withMessageId(step: FixedStep, messageId: string | undefined): FixedStep {
  if (!messageId) return step;
  if ("reply" in step) return { ...step, reply: { ...step.reply, messageId } };
  if ("json" in step) return { ...step, json: { ...step.json, messageId } };
  return step;
}

/**
 * A reply sent whole extends the thread or is stored (its content, or its output items); anything
 * else (an error, a cut, a client gone) leaves the server's state as it was.
 */
function settleTurn(turn: ThreadTurn | StoredTurn, step: FixedStep, res: ServerResponse, format: WireFormat): void {
  const reply = "reply" in step ? step.reply : "json" in step ? step.json : undefined;
  if (!reply || !res.writableEnded || res.destroyed) return turn.abandon();
  const whole = format.jsonBody(reply) as { content?: unknown[]; output?: unknown[] };
  turn.complete(whole.content ?? whole.output ?? []);
}

/** Repeats the reply's text event until `bytes` are written or the client leaves, waiting for the socket to drain. */
async function flood(res: ServerResponse, format: WireFormat, piece: string, bytes: number): Promise<void> {
  const events = format.streamEvents({ text: piece, chunkSize: piece.length });
  const at = events.findIndex((event) => event.includes(piece));
  const [head, text, tail] = [events.slice(0, at).join(""), events[at], events.slice(at + 1).join("")];
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.write(head);
  for (let written = 0; written < bytes && !res.destroyed; written += text.length) {
    if (!res.write(text))
      await new Promise((resolve) => {
        res.once("drain", resolve);
        res.once("close", resolve);
      });
  }
  if (!res.destroyed) res.end(tail);
}

async function trickle(res: ServerResponse, body: string, bytesPerWrite: number, intervalMs: number): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const bytes = Buffer.from(body);
  for (let start = 0; start < bytes.length && !res.destroyed; start += bytesPerWrite) {
    res.write(bytes.subarray(start, start + bytesPerWrite));
    await sleep(intervalMs);
  }
  if (!res.destroyed) res.end();
}

/**
 * A script for conversations that run at once (an agent and its subagents), whose requests come
 * in no fixed order: each request is answered from the script whose key its first user message
 * contains, in that script's order. One step per request of all the scripts together.
 */
export function byConversation(scripts: Record<string, ScriptStep[]>): ScriptStep[] {
  const queues = Object.entries(scripts).map(([key, steps]) => ({ key, steps: [...steps] }));
  const total = queues.reduce((sum, queue) => sum + queue.steps.length, 0);
  const step = (request: RecordedRequest): ScriptStep | Promise<ScriptStep> => {
    const messages: Array<{ role?: string }> = request.conversation?.messages ?? request.body?.input ?? [];
    const first = JSON.stringify(messages.find((message) => message.role === "user") ?? "");
    const queue = queues.find((candidate) => first.includes(candidate.key));
    if (!queue) throw new Error(`no script for the conversation that starts ${first.slice(0, 120)}`);
    const next = queue.steps.shift();
    if (!next) throw new Error(`the script for "${queue.key}" ran out`);
    return typeof next === "function" ? next(request) : next;
  };
  return Array.from({ length: total }, () => step);
}

/** Starts a server with a script; remember `await server.close()`. */
export async function startFakeLLM(script: ScriptStep[] = []): Promise<FakeLLM> {
  return new FakeLLM(script).start();
}

/** A model list the OpenAI (`object`, `owned_by`), Anthropic (`type`, `has_more`) and Gemini (`models`) clients accept. */
function modelList(ids: string[]) {
  const data = ids.map((id) => ({
    id,
    object: "model",
    type: "model",
    display_name: id,
    created: 0,
    created_at: "2025-01-01T00:00:00Z",
    owned_by: "fake",
  }));
  // Gemini's list is `models`, each named `models/<id>` with the methods it serves.
  const models = ids.map((id) => ({ name: `models/${id}`, supportedGenerationMethods: ["generateContent"] }));
  return { object: "list", data, has_more: false, first_id: ids[0] ?? null, last_id: ids.at(-1) ?? null, models };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Wall-clock ms with sub-millisecond precision. */
function now(): number {
  return performance.timeOrigin + performance.now();
}

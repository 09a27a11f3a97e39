// `harness serve`'s HTTP side (node:http, no framework): the guard on every request
// (request-guard.ts), then the API over the served sessions, the event streams and the page.
// Routes (docs/serve.md): GET /api/sessions, POST /api/sessions, POST /api/sessions/:id/prompt,
// /interrupt, /answer, /model, /undo, GET /api/sessions/:id/events (SSE); GET / is the page.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import type { LogBounds } from "./event-log.ts";
import { lastSeenOf, streamLog } from "./event-stream.ts";
import { FailureLimit, foreignRequest, hostNamesFor, isToken, tokenOf } from "./request-guard.ts";
import { type AskClientsFn, type HostedServeSession, ServedSession, ServeError } from "./served-session.ts";

/** Most bytes of a request body (a prompt with room to spare). */
const MAX_BODY_BYTES = 1_000_000;
/** Most sessions one server holds at once. */
const MAX_SESSIONS = 64;

/** What a client may ask a new session to be; the host decides what it grants (never more than its own flags). */
export const createRequestSchema = z.strictObject({
  cwd: z.string().min(1).optional(),
  provider: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  approve: z.string().min(1).optional(),
  /** A stored session (its id or first characters) to continue, as `harness -r`: after a restart, say. */
  resume: z.string().min(1).max(200).optional(),
  /**
   * Work in a new git worktree of cwd's repository, as `harness -w [name]`: a name, or true (or
   * "") for a generated one. The name rules are the CLI's (wiring/worktree-git.ts).
   */
  worktree: z.union([z.string().max(200), z.literal(true)]).optional(),
});
export type CreateRequest = z.infer<typeof createRequestSchema>;

/** What the server needs from the program around it. */
export interface ServeHost {
  /** A new session; throws with a message for the client when it cannot be made or is refused. */
  create(request: CreateRequest, ask: AskClientsFn): Promise<HostedServeSession>;
}

export interface ServeOptions {
  host: string;
  port: number;
  token: string;
  serveHost: ServeHost;
  /** With a key and certificate: HTTPS (required off loopback; the command checks that). */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** The page at `/` (web-page.ts), with its headers. */
  page?: { body: string; headers: Record<string, string> };
  bounds?: LogBounds;
}

export interface RunningServer {
  url: string;
  server: Server;
  sessions: Map<string, ServedSession>;
  close(): Promise<void>;
}

const answerSchema = z.strictObject({
  questionId: z.string().min(1),
  answer: z.enum(["yes", "no", "always"]),
  /** Why not (a "no" only), for the model, as a terminal's "refuse, saying why". */
  reason: z.string().max(4000).optional(),
});
const promptSchema = z.strictObject({ text: z.string().min(1) });
const modelSchema = z.strictObject({ model: z.string().min(1) });
const undoSchema = z.strictObject({ turns: z.number().int().positive().max(1000).default(1) });

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const sessions = new Map<string, ServedSession>();
  const limit = new FailureLimit();
  const scheme = options.tls ? "https" : "http";
  let hosts = new Set<string>();
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    void route(request, response).catch((error) => {
      const status = error instanceof ServeError ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      if (!response.headersSent) send(response, status, { error: message });
      else response.destroy();
    });
  };
  const route = async (request: IncomingMessage, response: ServerResponse) => {
    const foreign = foreignRequest(request, hosts, scheme);
    if (foreign) throw new ServeError(403, foreign);
    const url = new URL(request.url ?? "/", `${scheme}://${request.headers.host}`);
    const method = request.method ?? "GET";
    // The page holds no session data and no token (the token travels in the address's #fragment,
    // which browsers never send): it is the one thing served without one.
    if (method === "GET" && url.pathname === "/" && options.page) {
      response.writeHead(200, options.page.headers);
      response.end(options.page.body);
      return;
    }
    const address = request.socket.remoteAddress ?? "?";
    const wait = limit.waitFor(address);
    if (wait > 0) {
      response.setHeader("retry-after", String(Math.ceil(wait / 1000)));
      throw new ServeError(429, "too many wrong tokens: wait and try again");
    }
    const given = tokenOf(request);
    if (given === undefined || !isToken(given, options.token)) {
      limit.fail(address);
      response.setHeader("www-authenticate", 'Bearer realm="harness"');
      throw new ServeError(401, "a valid token is required (Authorization: Bearer <token>)");
    }
    const parts = url.pathname.split("/").filter(Boolean);
    if (parts[0] !== "api" || parts[1] !== "sessions") throw new ServeError(404, "no such route");
    if (parts.length === 2) {
      if (method === "GET") return send(response, 200, { sessions: [...sessions.values()].map((s) => s.summary()) });
      if (method === "POST") return send(response, 201, await create(await bodyOf(request, createRequestSchema)));
      throw new ServeError(405, "GET or POST");
    }
    const session = sessions.get(decodeURIComponent(parts[2]));
    if (!session) throw new ServeError(404, "no such session");
    const action = `${method} ${parts.slice(3).join("/")}`;
    switch (action) {
      case "GET ":
        return send(response, 200, session.summary());
      case "GET events":
        return streamLog(response, session.log, lastSeenOf(request, url));
      case "POST prompt":
        await session.prompt((await bodyOf(request, promptSchema)).text);
        return send(response, 202, { accepted: true });
      case "POST interrupt":
        return send(response, 200, { interrupted: session.interrupt() });
      case "POST answer": {
        const { questionId, answer, reason } = await bodyOf(request, answerSchema);
        session.answer(questionId, answer === "no" && reason ? { type: "no", reason } : { type: answer });
        return send(response, 200, { answered: true });
      }
      case "POST model":
        await session.switchModel((await bodyOf(request, modelSchema)).model);
        return send(response, 200, session.summary());
      case "POST undo":
        await session.undo((await bodyOf(request, undoSchema)).turns);
        return send(response, 200, session.summary());
      default:
        throw new ServeError(404, "no such route");
    }
  };
  const create = async (request: CreateRequest) => {
    if (sessions.size >= MAX_SESSIONS) throw new ServeError(503, `this server holds ${MAX_SESSIONS} sessions already`);
    const given = request.resume;
    if (given !== undefined && [...sessions.keys()].some((id) => id.startsWith(given)))
      throw new ServeError(409, "this server serves that session already");
    const served = new ServedSession(options.bounds);
    try {
      served.hosted = await options.serveHost.create(request, served.ask);
    } catch (error) {
      throw new ServeError(400, error instanceof Error ? error.message : String(error));
    }
    sessions.set(served.hosted.id, served);
    return served.summary();
  };
  const server = options.tls ? createHttpsServer(options.tls, handle) : createHttpServer(handle);
  // Bounds on what one connection may hold: headers and a body must come in time.
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
  server.maxHeadersCount = 100;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  hosts = hostNamesFor(options.host, port);
  const shownHost = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `${scheme}://${shownHost}:${port}/`,
    server,
    sessions,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await Promise.allSettled([...sessions.values()].map((session) => session.close()));
    },
  };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  response.end(text);
}

/** The request's JSON body, checked; too large or malformed is the client's error (413, 400). */
async function bodyOf<T extends z.ZodType>(request: IncomingMessage, schema: T): Promise<z.output<T>> {
  const type = request.headers["content-type"] ?? "";
  // A page elsewhere can send a "simple" cross-site POST only as text/plain or a form: JSON is required.
  if (!type.startsWith("application/json")) throw new ServeError(415, "the body must be application/json");
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ServeError(413, `the body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
  } catch {
    throw new ServeError(400, "the body is not JSON");
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new ServeError(
      400,
      parsed.error.issues.map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`).join("; "),
    );
  return parsed.data;
}

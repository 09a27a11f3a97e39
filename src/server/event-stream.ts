// One client's Server-Sent Events stream of a session. The client is a cursor into the session's
// log: events are written while the socket takes them and wait in the log (not in this process's
// buffers) while it does not, so a client that reads nothing costs one socket's buffer, however
// much the session says. A client so slow that the log dropped what it had not read is
// disconnected; reconnecting with its Last-Event-ID, it is told what it missed (`reset`).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { EventLog } from "./event-log.ts";

/** Events, and bytes, written per turn of the pump: one client's backlog neither holds the process up nor fills its memory. */
const BATCH = 200;
const BATCH_BYTES = 64_000;
/** A comment line this often keeps proxies and idle timeouts from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;

/** The id a reconnecting client saw last (`Last-Event-ID`, or `?after=` for a first connection); 0: from the start. */
export function lastSeenOf(request: IncomingMessage, url: URL): number {
  const given = request.headers["last-event-id"] ?? url.searchParams.get("after") ?? "0";
  const id = Number(given);
  return Number.isSafeInteger(id) && id >= 0 ? id : 0;
}

/** Streams `log` after `lastSeen` to `response` until the client goes. */
export function streamLog(response: ServerResponse, log: EventLog, lastSeen: number): void {
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  let cursor = lastSeen;
  let isWaiting = false;
  let isFirst = true;
  const pump = () => {
    if (isWaiting || response.destroyed) return;
    for (;;) {
      const { entries, complete } = log.since(cursor, BATCH);
      if (!complete) {
        if (!isFirst) {
          response.destroy(); // fell behind what the log keeps: reconnect and be told
          return;
        }
        const first = entries[0]?.id ?? log.lastId + 1;
        response.write(
          `event: reset\ndata: ${JSON.stringify({ type: "reset", missed: { after: cursor, before: first } })}\n\n`,
        );
        cursor = first - 1; // what follows is read from the first kept event on
      }
      isFirst = false;
      if (entries.length === 0) return;
      let chunk = "";
      for (const entry of entries) {
        chunk += `id: ${entry.id}\ndata: ${entry.json}\n\n`;
        cursor = entry.id;
        if (chunk.length > BATCH_BYTES) break;
      }
      if (!response.write(chunk)) {
        isWaiting = true;
        response.once("drain", () => {
          isWaiting = false;
          pump();
        });
        return;
      }
    }
  };
  const unsubscribe = log.subscribe(() => {
    // Waiting on a client while the log drops what it has not read: let it go (it may come back).
    if (isWaiting && !log.since(cursor, 0).complete) response.destroy();
    else pump();
  });
  const keepalive = setInterval(() => {
    if (!isWaiting) response.write(": keepalive\n\n");
  }, KEEPALIVE_MS);
  keepalive.unref();
  response.on("close", () => {
    unsubscribe();
    clearInterval(keepalive);
  });
  pump();
}

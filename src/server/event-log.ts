// A served session's events, numbered and kept (a bounded number and size of them), so a client
// that reconnects with the last id it saw (SSE's Last-Event-ID) gets every event after it, and
// several clients can watch one session. The oldest events go first when a bound is passed; a
// client asking for one that went is told so (`reset`) and gets what is kept. So is a client
// that comes back after the server was restarted: its ids are of another run of the server.
import type { ServerEvent } from "./server-events.ts";

interface LoggedEvent {
  id: number;
  event: ServerEvent;
  /** The event as JSON: made once, sent to every client. */
  json: string;
}

/** How much of a session's stream a server keeps. */
export interface LogBounds {
  maxEvents: number;
  maxBytes: number;
}

/** 20,000 events or 16 MB per session: a long session's recent hours, not its whole life. */
const DEFAULT_LOG_BOUNDS: LogBounds = { maxEvents: 20_000, maxBytes: 16_000_000 };

export class EventLog {
  private readonly entries: LoggedEvent[] = [];
  private bytes = 0;
  private nextId: number;
  private readonly listeners = new Set<(entry: LoggedEvent) => void>();

  /** `firstId`: the first event's id (a served session's is above any an earlier server gave it: event ids). */
  constructor(
    private readonly bounds: LogBounds = DEFAULT_LOG_BOUNDS,
    private readonly firstId = 1,
  ) {
    this.nextId = firstId;
  }

  append(event: ServerEvent): LoggedEvent {
    const entry = { id: this.nextId++, event, json: JSON.stringify(event) };
    this.entries.push(entry);
    this.bytes += entry.json.length;
    while (
      this.entries.length > 1 &&
      (this.entries.length > this.bounds.maxEvents || this.bytes > this.bounds.maxBytes)
    )
      this.bytes -= this.entries.shift()?.json.length ?? 0;
    for (const listener of this.listeners) listener(entry);
    return entry;
  }

  /** The last id given (0: none yet). */
  get lastId(): number {
    return this.nextId - 1;
  }

  /**
   * At most `limit` events after `lastSeen`; `complete` is false when some of those are no longer
   * kept (the first returned is then the oldest kept). Ids are consecutive, so this is a slice.
   */
  since(lastSeen: number, limit = Number.POSITIVE_INFINITY): { entries: LoggedEvent[]; complete: boolean } {
    const first = this.entries[0]?.id ?? this.nextId;
    const seen = lastSeen === 0 ? this.firstId - 1 : lastSeen;
    // An id this log never gave: one an earlier run of the server gave (it was restarted). Told so, from the start.
    if (seen > this.lastId || seen < this.firstId - 1)
      return { entries: this.entries.slice(0, limit), complete: false };
    const start = Math.max(0, seen + 1 - first);
    return { entries: this.entries.slice(start, start + limit), complete: seen + 1 >= first };
  }

  /** Calls `listener` with each event appended from now on; returns the unsubscribe. */
  subscribe(listener: (entry: LoggedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

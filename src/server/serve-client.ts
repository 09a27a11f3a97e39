// The client side of `harness serve`, for an editor extension, a bot or `harness attach`:
// the API's calls, and a session's events as an async iterator that reconnects by itself with the
// last event id it saw, so a dropped connection loses nothing (docs/serve.md has an example).

import type { SessionSummary } from "./served-session.ts";
import type { ServerEvent } from "./server-events.ts";

export type { SessionSummary } from "./served-session.ts";
export type { ServerEvent } from "./server-events.ts";

/** Where the server is and the token it printed (`harness serve`; also $HARNESS_HOME/serve.json). */
export interface ServeConnection {
  url: string;
  token: string;
}

/** What the server refused, with its status and its words. */
export class ServeClientError extends Error {
  override name = "ServeClientError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** One event of a session's stream; `reset`: events before `id` were no longer kept when asked for. */
export type StreamItem = { id: number; event: ServerEvent } | { id: undefined; event: { type: "reset" } };

/** Most reconnections in a row before `events` gives up (a server that stays away). */
const MAX_RECONNECTS = 20;
const RECONNECT_DELAY_MS = 500;

export class ServeClient {
  constructor(private readonly connection: ServeConnection) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(new URL(path, this.connection.url), {
      method,
      headers: {
        authorization: `Bearer ${this.connection.token}`,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    const value = text ? JSON.parse(text) : {};
    if (!response.ok) throw new ServeClientError(response.status, value.error ?? response.statusText);
    return value as T;
  }

  async listSessions(): Promise<SessionSummary[]> {
    return (await this.call<{ sessions: SessionSummary[] }>("GET", "api/sessions")).sessions;
  }

  /**
   * A new session in `cwd`; or, with `resume`, a stored one served again (after a restart, say).
   * `worktree`: in a new git worktree of cwd's repository, as `harness -w` (a name, or true for a
   * generated one); the summary's `worktree` names it and its branch.
   */
  createSession(request: {
    cwd?: string;
    resume?: string;
    worktree?: string | true;
    provider?: string;
    model?: string;
    approve?: string;
  }): Promise<SessionSummary> {
    return this.call("POST", "api/sessions", request);
  }

  session(id: string): Promise<SessionSummary> {
    return this.call("GET", `api/sessions/${encodeURIComponent(id)}`);
  }

  /** Starts a prompt; its events come on the stream. Refused (409) while one runs. */
  async prompt(id: string, text: string): Promise<void> {
    await this.call("POST", `api/sessions/${encodeURIComponent(id)}/prompt`, { text });
  }

  async interrupt(id: string): Promise<boolean> {
    return (await this.call<{ interrupted: boolean }>("POST", `api/sessions/${encodeURIComponent(id)}/interrupt`, {}))
      .interrupted;
  }

  /** Answers a question (a "no" may say why: the model is told); one someone answered first is refused (409). */
  async answer(id: string, questionId: string, answer: "yes" | "no" | "always", reason?: string): Promise<void> {
    const body = { questionId, answer, ...(reason ? { reason } : {}) };
    await this.call("POST", `api/sessions/${encodeURIComponent(id)}/answer`, body);
  }

  switchModel(id: string, model: string): Promise<SessionSummary> {
    return this.call("POST", `api/sessions/${encodeURIComponent(id)}/model`, { model });
  }

  undo(id: string, turns = 1): Promise<SessionSummary> {
    return this.call("POST", `api/sessions/${encodeURIComponent(id)}/undo`, { turns });
  }

  /**
   * The session's events after `after` (0: all the server keeps), as they come, until `signal`
   * aborts. A dropped connection is made again with the last id seen.
   */
  async *events(id: string, options: { after?: number; signal?: AbortSignal } = {}): AsyncGenerator<StreamItem> {
    let lastId = options.after ?? 0;
    let failures = 0;
    while (!options.signal?.aborted) {
      let response: Response;
      try {
        response = await fetch(new URL(`api/sessions/${encodeURIComponent(id)}/events`, this.connection.url), {
          headers: { authorization: `Bearer ${this.connection.token}`, "last-event-id": String(lastId) },
          signal: options.signal,
        });
      } catch (error) {
        if (options.signal?.aborted) return;
        if (++failures > MAX_RECONNECTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_DELAY_MS));
        continue;
      }
      if (!response.ok || !response.body) {
        const text = await response.text();
        throw new ServeClientError(response.status, text ? (JSON.parse(text).error ?? text) : response.statusText);
      }
      failures = 0;
      try {
        for await (const item of parseStream(response.body)) {
          if (item.id !== undefined) lastId = item.id;
          yield item;
        }
      } catch (error) {
        if (options.signal?.aborted) return;
        if (++failures > MAX_RECONNECTS) throw error;
      }
      if (!options.signal?.aborted) await new Promise((resolve) => setTimeout(resolve, RECONNECT_DELAY_MS));
    }
  }
}

/** Server-Sent Events (https://html.spec.whatwg.org/multipage/server-sent-events.html) as stream items. */
async function* parseStream(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamItem> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    for (let end = buffered.indexOf("\n\n"); end >= 0; end = buffered.indexOf("\n\n")) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      let id: number | undefined;
      let data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("id: ")) id = Number(line.slice(4));
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      if (!data) continue;
      const event = JSON.parse(data);
      if (event.type === "reset") yield { id: undefined, event: { type: "reset" } };
      else if (id !== undefined) yield { id, event };
    }
  }
}

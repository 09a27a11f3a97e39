// OpenAI's stored responses (Responses API `store: true`, `previous_response_id`) as the fake keeps
// them. The rules kept, each with its source:
// - `store: true` keeps the request's input and the response's output under the response's id for
//   30 days (https://platform.openai.com/docs/guides/conversation-state: "Response objects are
//   saved for 30 days by default"); `store: false` keeps nothing.
// - `previous_response_id` names a stored response: the model reads what it holds, then the
//   request's `input`. `instructions` are not carried over (API reference, `instructions`: "When
//   using along with previous_response_id, the instructions from a previous response will not be
//   carried over to the next response"), nor are `tools` (request fields, sent each time), so the
//   model reads only the request's own.
// - An unknown, expired or unstored id is a 400 `previous_response_not_found`, in OpenAI's error
//   shape: {"error":{"message":"Previous response with id 'resp_...' not found.","type":
//   "invalid_request_error","param":"previous_response_id","code":"previous_response_not_found"}}
//   (maximhq/bifrost#2441, Soju06/codex-lb#1817).
// - A response may be continued more than once: two requests naming the same id branch from it
//   (community.openai.com/t/1379948, "Parallel Response Branches with the OpenAI Responses API":
//   two calls with the same previous_response_id both answered). So the fake never refuses a
//   second continue; that harness never makes one is harness's own bookkeeping.
// - An organisation under zero data retention stores nothing, whatever `store` says
//   (vllm-project/agentic-api#238, citing https://platform.openai.com/docs/guides/your-data):
//   `zeroDataRetention` here.
// - A backend that takes only `store: false` (ChatGPT's Codex backend) refuses `store: true` with
//   400 {"detail":"Store must be set to false"} (openai/codex#26173, router-for-me/CLIProxyAPI#41):
//   `refusesStore` here.

export const STORED_TTL_MS = 30 * 24 * 3600_000;

interface Stored {
  /** The input items and output items the response holds, in order. */
  items: any[];
  createdAt: number;
}

export interface StoreRefusal {
  status: number;
  body: unknown;
}

/** A request that stores its response or continues a stored one, until its reply is whole or not. */
export interface StoredTurn {
  kind: "create" | "continue";
  /** What the model reads: the request, its input preceded by what the named response holds. */
  conversation: any;
  /** The id the response gets. */
  messageId: string;
  complete(output: unknown[]): void;
  abandon(): void;
}

export class FakeResponseStore {
  /** The fake's clock (ms); a test moves it to let responses expire without waiting. */
  clock: () => number = Date.now;
  /** The organisation keeps no data: `store: true` stores nothing. */
  zeroDataRetention = false;
  /** The backend refuses `store: true` outright. */
  refusesStore = false;
  /** Refusals given, by code, for tests. */
  readonly refusals: string[] = [];
  private readonly stored = new Map<string, Stored>();
  private responses = 0;

  /** A storing or continuing request accepted as a turn, or refused; undefined for a stateless one. */
  open(body: any): StoredTurn | StoreRefusal | undefined {
    if (!body || (body.store !== true && body.previous_response_id === undefined)) return undefined;
    if (body.store === true && this.refusesStore) {
      this.refusals.push("store_refused");
      return { status: 400, body: { detail: "Store must be set to false" } };
    }
    const now = this.clock();
    for (const [id, stored] of this.stored) if (now - stored.createdAt > STORED_TTL_MS) this.stored.delete(id);
    const { previous_response_id: previous, ...rest } = body;
    let held: any[] = [];
    if (previous !== undefined) {
      const stored = this.stored.get(previous);
      if (!stored) {
        this.refusals.push("previous_response_not_found");
        return {
          status: 400,
          body: {
            error: {
              message: `Previous response with id '${previous}' not found.`,
              type: "invalid_request_error",
              param: "previous_response_id",
              code: "previous_response_not_found",
            },
          },
        };
      }
      held = stored.items;
    }
    const conversation = { ...rest, input: [...structuredClone(held), ...(body.input ?? [])] };
    const messageId = `resp_stored_${++this.responses}`;
    return {
      kind: previous === undefined ? "create" : "continue",
      conversation,
      messageId,
      complete: (output) => {
        // Whether it is kept is the account's at the time the response is done.
        if (body.store === true && !this.zeroDataRetention)
          this.stored.set(messageId, { items: [...conversation.input, ...structuredClone(output)], createdAt: now });
      },
      abandon: () => {},
    };
  }

  /** Forgets a response, as an unknown id is. */
  forget(id: string): void {
    this.stored.delete(id);
  }
}

// Bounds on one model call, enforced on the bytes of its HTTP reply: how big the reply may get,
// how long the server may stay silent, and how long the whole call may take. Without them a
// broken or hostile server could fill memory with an endless stream, or hold a run for the 300 s
// of undici's own idle timeout on every retry.
import { ProviderError } from "../core/provider.ts";
import { formatBytes, formatDuration } from "../shared/helpers.ts";
import { type HttpReply, replyOver } from "./post-json.ts";
import { requestAbort } from "./request-abort.ts";

/** Most bytes one reply may have (16 MB): past it the call fails and is not retried. */
export const DEFAULT_MAX_REPLY_BYTES = 16_000_000;
/**
 * Most silence between two bytes of a reply, before the first one included (2 minutes). Servers
 * that think before answering send keep-alives (Anthropic's pings, OpenAI's first chunk); a local
 * server reading a long prompt on a CPU may need more: raise it with --idle-timeout.
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;
/** Most time one call may take, from the request to the reply's last byte (10 minutes). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 600_000;
/** How long the server may be silent before the user is told that we are waiting, and how often again. */
const WAIT_NOTICE_MS = 15_000;

/** The bounds, as settings carry them. */
export interface CallLimits {
  maxReplyBytes?: number;
  idleTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Told (a one-line notice) while the server stays silent; the CLI writes it on stderr. */
  onWait?(notice: string): void;
}

/**
 * Watches one call: `signal` aborts the request when the user does or a bound is passed, `body`
 * wraps the reply so its bytes are counted and timed, and `failure` says which bound it was.
 */
export class CallWatch {
  /** The request's own abort controller (see request-abort.ts), aborted by the user or a bound. */
  readonly controller: AbortController;
  private readonly release: () => void;
  private readonly timers: NodeJS.Timeout[] = [];
  private lastByteAt = Date.now();
  private nextNoticeAt: number;
  private bytes = 0;
  failure: ProviderError | undefined;

  constructor(
    userSignal: AbortSignal,
    private readonly limits: CallLimits,
    private readonly where: string,
  ) {
    const idleMs = limits.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    const requestMs = limits.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.nextNoticeAt = Math.min(WAIT_NOTICE_MS, idleMs / 2);
    ({ controller: this.controller, release: this.release } = requestAbort(userSignal));
    this.timers.push(
      setTimeout(
        () =>
          this.fail(
            timeout(
              `${where} did not finish its reply within ${formatDuration(requestMs)} (the request timeout; raise it with --request-timeout or HARNESS_REQUEST_TIMEOUT)`,
            ),
          ),
        requestMs,
      ),
    );
    // Checked a few times per idle period rather than re-armed on every chunk of a fast stream.
    this.timers.push(setInterval(() => this.checkSilence(idleMs), Math.max(50, Math.min(1000, idleMs / 4))));
    for (const timer of this.timers) timer.unref();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The reply with its body counted and timed; reading past the byte cap fails the call. */
  body(reply: HttpReply): HttpReply {
    const maxBytes = this.limits.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
    const counted = async function* (this: CallWatch): AsyncGenerator<Uint8Array> {
      for await (const bytes of reply.body) {
        this.touch();
        this.bytes += bytes.byteLength;
        if (this.bytes > maxBytes) {
          this.fail(
            new ProviderError(
              "too_large",
              `the reply from ${this.where} passed ${formatBytes(maxBytes)}, the most one reply may have; it was cut off and not retried (raise maxReplyBytes in config.json or HARNESS_MAX_REPLY_BYTES if this is real)`,
            ),
          );
          throw this.failure;
        }
        yield bytes;
      }
    }.call(this);
    return replyOver(reply.status, reply.headers, counted);
  }

  /** Stops the timers; call when the call is over, however it ended. */
  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.release();
  }

  private touch(): void {
    this.lastByteAt = Date.now();
    this.nextNoticeAt = Math.min(WAIT_NOTICE_MS, (this.limits.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS) / 2);
  }

  private checkSilence(idleMs: number): void {
    const silentMs = Date.now() - this.lastByteAt;
    if (silentMs >= idleMs) {
      this.fail(
        timeout(
          `${this.where} sent nothing for ${formatDuration(idleMs)} (the idle timeout; raise it with --idle-timeout or HARNESS_IDLE_TIMEOUT)`,
        ),
      );
    } else if (silentMs >= this.nextNoticeAt) {
      this.limits.onWait?.(
        `waiting for ${this.where}: nothing for ${formatDuration(silentMs)}; giving up at ${formatDuration(idleMs)} of silence`,
      );
      this.nextNoticeAt += Math.min(WAIT_NOTICE_MS, idleMs / 2);
    }
  }

  private fail(failure: ProviderError): void {
    if (this.failure) return;
    this.failure = failure;
    this.close();
    this.controller.abort(failure);
  }
}

function timeout(message: string): ProviderError {
  return new ProviderError("timeout", message);
}

// The model call a session's harness had in flight when it was stopped (a timeout's interrupt, a
// SIGKILL), read back from its session file: a call that never completed has no `usage` line, but
// the server may bill it all the same (docs/batch.md, "The call in flight").
import { conversationTokens, estimateMessageTokens } from "../core/context-budget.ts";
import type { Message, Usage } from "../core/messages.ts";
import type { SessionData } from "./session-reader.ts";

/** Tokens of the call in flight: exact where the wire said them early (`call_usage`), else estimated. */
interface CallInFlight {
  model: string;
  usage: Usage;
  /** Some of `usage` is estimated from the request's and the partial reply's characters. */
  estimated: boolean;
}

/**
 * The call that was in flight at the end of `session`, or undefined when none was. `open` is what
 * the caller saw of the harness's events (a `turn_start` with no reply after it): known, it
 * decides; unknown (the batch itself was killed), the file decides: a request written with no reply
 * after it, or a reply cut off mid-stream. An interrupt after the tools' results, before the next
 * call, leaves the same lines as an interrupt of a call that had streamed nothing: only `open`
 * tells them apart, so without it such a call is not counted (the smaller mistake).
 *
 * *Decision*: a call whose request was sent but whose reply never said its tokens (every OpenAI-style
 * wire: usage comes last) is counted at the request's estimated size, all of it as uncached input:
 * the previous reply's reported request size and output, plus the messages after it at four
 * characters a token (context-budget.ts), uncalibrated (the file lacks the system prompt and tools
 * a calibration needs). It errs high on price (a cached prefix costs less) and low on the first
 * call (its system prompt and tools are not in the file). A reply cut off mid-stream adds its
 * text's estimated output.
 */
export function callInFlight(session: SessionData, open?: boolean): CallInFlight | undefined {
  let early: { usage: Usage; model: string } | undefined;
  let last: Message | undefined;
  let interrupted = false;
  for (const entry of session.entries) {
    switch (entry.type) {
      case "usage":
      case "error": // the call failed (its retries spent): a refused request is not billed
        early = undefined;
        last = undefined;
        interrupted = false;
        break;
      case "call_usage":
        early = { usage: entry.usage, model: entry.model };
        break;
      case "message":
        last = entry.message;
        interrupted = false;
        break;
      case "interrupted":
        interrupted = true;
        break;
      default:
        break;
    }
  }
  const partial = last?.role === "assistant" && last.stopReason === "aborted" && !last.usage ? last : undefined;
  const isOpen =
    open ?? (partial !== undefined || early !== undefined || (last?.role !== "assistant" && !!last && !interrupted));
  if (!isOpen || (last?.role === "assistant" && !partial)) return undefined;
  const output = partial ? estimateMessageTokens(partial) : 0;
  if (early)
    return {
      model: early.model,
      usage: { ...early.usage, output: Math.max(early.usage.output, output) },
      estimated: output > early.usage.output,
    };
  const tail = session.messages.at(-1);
  const sent =
    tail?.role === "assistant" && tail.stopReason === "aborted" ? session.messages.slice(0, -1) : session.messages;
  return {
    model: session.model,
    usage: { input: conversationTokens(sent, "", [], 1), output, cacheRead: 0, cacheWrite: 0 },
    estimated: true,
  };
}

// What an attempt's harness had spent, read back from its session file: the one record of its
// model calls that a SIGKILL of the batch (or worker) cannot cut short, since the harness writes
// each call's usage there before it tells the batch. Lives here, not in src/batch, because it
// reads sessions (src/session) and prices calls (src/providers).
import { readdirSync } from "node:fs";
import type { SessionSpend } from "../../batch/attempt-journal.ts";
import type { PriceCall } from "../../batch/harness-child.ts";
import { tokensOf } from "../../batch/task-result.ts";
import { callInFlight } from "../../session/call-in-flight.ts";
import { newSessionId, SESSION_ID_PATTERN } from "../../session/session-id.ts";
import { readSessionHeader } from "../../session/session-list.ts";
import { readSession } from "../../session/session-reader.ts";
import { sessionPath } from "../../session/session-store.ts";

/** How far before its attempt's start a session may have been created (clocks in ms, ids in base 36). */
const CLOCK_SLACK_MS = 1000;

export function sessionSpendFor(price: PriceCall | undefined): SessionSpend {
  return (record, open) => {
    const path = record.sessionId ? sessionPath(record.sessionsDir, record.sessionId) : sessionOfCopy(record);
    if (!path) return undefined;
    let session: ReturnType<typeof readSession>;
    try {
      session = readSession(path);
    } catch {
      return undefined; // gone or unreadable: the batch's own record is what is known
    }
    let cost: number | undefined = 0;
    for (const { model, usage } of session.spent) {
      const priced = price?.(model, usage);
      cost = cost === undefined || priced === undefined ? undefined : cost + priced;
    }
    return {
      spent: { usage: session.usage, cost: cost === undefined ? undefined : Number(cost.toFixed(6)) },
      calls: session.entries.filter((entry) => entry.type === "usage").length,
      sessionId: session.header.id,
      ...inFlightOf(session, open, price),
    };
  };
}

/**
 * The session of an attempt whose batch died before its harness said which session it records:
 * the one started (not a subagent's) in the attempt's working copy, a folder no other attempt has,
 * at or after the attempt began. Session ids start with their creation time, so only those are read.
 */
function sessionOfCopy(record: Parameters<SessionSpend>[0]): string | undefined {
  if (!record.workdir) return undefined;
  const earliest = newSessionId(Date.parse(record.startedAt) - CLOCK_SLACK_MS).split("-")[0];
  let names: string[];
  try {
    names = readdirSync(record.sessionsDir);
  } catch {
    return undefined;
  }
  return names
    .filter((name) => name.endsWith(".jsonl") && SESSION_ID_PATTERN.test(name.slice(0, -6)) && name >= earliest)
    .sort()
    .map((name) => sessionPath(record.sessionsDir, name.slice(0, -6)))
    .find((path) => {
      const header = readSessionHeader(path);
      return header !== undefined && header.cwd === record.workdir && !header.parent;
    });
}

/** The session's call in flight, priced at its model (no `cost` when that price is unknown). */
function inFlightOf(session: ReturnType<typeof readSession>, open: boolean | undefined, price: PriceCall | undefined) {
  const call = callInFlight(session, open);
  if (!call) return {};
  const cost = price?.(call.model, call.usage);
  return {
    inFlight: {
      tokens: tokensOf(call.usage),
      ...(cost === undefined ? {} : { cost: Number(cost.toFixed(6)) }),
      estimated: call.estimated,
    },
  };
}

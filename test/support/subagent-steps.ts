// Script pieces the subagent tests share: a task call, a plain reply, and a rendezvous between
// conversations (or between a conversation and the test) with a liveness bound.
import type { ScriptStep } from "./fake-llm/server.ts";

/** A liveness bound on waiting for another conversation's request or the test's go-ahead: far above a normal run. */
const MEET_LIMIT_MS = 60_000;

export const taskCall = (id: string, args: Record<string, unknown>) => ({ id, name: "task", arguments: args });
export const text = (reply: string): ScriptStep => ({ reply: { text: reply } });

/** Resolves when `arrive` is called; rejects after MEET_LIMIT_MS, naming what never came. */
export function arrival(what: string): { arrive(): void; arrived: Promise<void> } {
  let arrive = () => {};
  const arrived = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} never came`)), MEET_LIMIT_MS);
    timer.unref();
    arrive = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  return { arrive, arrived };
}

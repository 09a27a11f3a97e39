// The question for a connection sandbox.network does not name, put as an approval with the
// command that asked for it (as the relay saw it: sandbox/relay-origin.ts): yes allows it once,
// always for the rest of the session, project always and saved for this project
// (network-grants.ts), no refuses it for the rest of the session (a retrying client would
// otherwise ask again and again).
import type { Via } from "../sandbox/network-proxy.ts";
import { type Origin, originText } from "../sandbox/relay-origin.ts";
import type { AskApprovalFn } from "./approver.ts";
import type { NetworkAnswer } from "./sandbox-network.ts";

export function networkQuestion(
  ask: AskApprovalFn,
  canSave: boolean,
): (host: string, port: number, via: Via, origin: Origin) => Promise<NetworkAnswer> {
  return async (host, port, via, origin) => {
    const where = `${host}:${port}`;
    const who = originText(origin);
    const how = via === "connect" ? "opens a tunnel" : "sends an HTTP request";
    const answer = await ask(
      {
        summary: `network> ${where}${who ? ` from: ${who}` : ""}`,
        why: `${who ? "this command" : "a sandboxed command"} ${how} to ${where}, which sandbox.network does not list; no refuses it for this session`,
        remember: [where],
        ...(canSave ? { project: where } : {}),
      },
      new AbortController().signal,
    );
    switch (answer?.type) {
      case "yes":
        return "once";
      case "always":
        return "session";
      case "project":
        return canSave ? "project" : "session";
      case "no":
      case undefined:
        return "never";
    }
  };
}

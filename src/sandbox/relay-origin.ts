// Which command opened a connection through the session's proxy. The proxy sees only its unix
// socket, so the command helper's relay (tools/commands/command-helper.ts), which accepts the
// command's TCP connection inside the sandbox, finds the process behind it in /proc and starts
// each connection to the proxy with one line naming it:
//
//   HARNESS-RELAY <token> <base64 of {"command": "...", "process": "..."}>\n
//
// and sends nothing more until the proxy answers `OK\n`, so the proxy's HTTP parser gets the
// connection from its first byte of HTTP. The token is the session's (SandboxPolicy.networkProxy):
// a process that reaches the socket directly, past the relay, has no token and is refused.
//
// The name is for the person and the record, never for a verdict: a process inside the sandbox
// that reads the helper's environment could learn the token and claim another command's name.
import { timingSafeEqual } from "node:crypto";
import type net from "node:net";

/** Who opened a connection, as the relay saw it: the bash tool's command, and the program that connected. */
export interface Origin {
  /** The command (as the bash tool ran it) whose process tree the connecting process belongs to. */
  command?: string;
  /** The connecting process's command line, when it differs from the command (`node /usr/bin/npm ci`). */
  process?: string;
}

const PREAMBLE = "HARNESS-RELAY ";
/** Longest first line taken (a command's text is cut to 1000 characters by the relay). */
const MAX_LINE_BYTES = 16_384;
/** Longest name kept from what a relay says. */
const MAX_NAME_CHARS = 1000;

/**
 * Reads a relayed connection's first line; calls `accepted` with its origin once the line is
 * whole and the token agrees (the caller then answers `OK\n`), else `refused` with why.
 */
export function readRelayLine(
  socket: net.Socket,
  token: string,
  accepted: (origin: Origin) => void,
  refused: (why: string) => void,
): void {
  let bytes = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    bytes = Buffer.concat([bytes, chunk]);
    const end = bytes.indexOf(10);
    const isPrefix = bytes.subarray(0, PREAMBLE.length).toString("latin1") === PREAMBLE.slice(0, bytes.length);
    if (!isPrefix || (end === -1 && bytes.length > MAX_LINE_BYTES)) return finish(refusalOf());
    if (end === -1) return;
    // The relay sends nothing after its line until the proxy answers.
    if (end !== bytes.length - 1) return finish(refusalOf());
    const [given = "", encoded = ""] = bytes.subarray(PREAMBLE.length, end).toString("latin1").trim().split(" ");
    if (!sameToken(given, token)) return finish(refusalOf());
    finish(undefined, originOf(encoded));
  };
  const finish = (why: string | undefined, origin?: Origin) => {
    socket.off("data", onData);
    if (why === undefined) accepted(origin ?? {});
    else refused(why);
  };
  socket.on("data", onData);
}

function refusalOf(): string {
  return "this socket takes connections from the command helper's relay only (HTTP_PROXY=127.0.0.1:3128 inside the sandbox)";
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function originOf(encoded: string): Origin {
  try {
    const value = JSON.parse(Buffer.from(encoded, "base64").toString("utf8"));
    const text = (field: unknown) =>
      typeof field === "string" && field.trim() !== "" ? field.slice(0, MAX_NAME_CHARS) : undefined;
    const command = text(value?.command);
    const program = text(value?.process);
    return { ...(command ? { command } : {}), ...(program && program !== command ? { process: program } : {}) };
  } catch {
    return {};
  }
}

/** How a connection's origin reads in a question, a notice or /network: `npm ci` (node /usr/bin/npm ci). */
export function originText(origin: Origin): string | undefined {
  if (origin.command && origin.process) return `${origin.command} (${origin.process})`;
  return origin.command ?? (origin.process ? `${origin.process} (started by no running command)` : undefined);
}

// The editor's side of `harness acp` for tests: the ACP SDK's client against the built CLI in a
// child process, recording every update and permission request it gets.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import {
  client as acpClient,
  type ClientContext,
  methods,
  ndJsonStream,
  type RequestPermissionRequest,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import { CLI } from "./helpers.ts";
import { killAtTestEnd } from "./teardown.ts";

/** What the editor saw during one connection. */
export interface EditorLog {
  updates: SessionNotification[];
  permissions: RequestPermissionRequest[];
  stderr: string;
  code: number | null;
}

/** Runs `harness acp` and the SDK's client against it for the length of `work`. */
export async function withEditor(
  options: {
    env: NodeJS.ProcessEnv;
    cwd: string;
    answer(request: RequestPermissionRequest): string;
    /** Flags after `harness acp`. */
    args?: string[];
    /** A command `harness acp` runs under (`setpriv --reuid=nobody ...`), given its argv last. */
    wrap?: string[];
  },
  work: (ctx: ClientContext, log: EditorLog) => Promise<void>,
): Promise<EditorLog> {
  const wrapped = [...(options.wrap ?? []), process.execPath, CLI, "acp", ...(options.args ?? [])];
  const child = killAtTestEnd(
    spawn(wrapped[0], wrapped.slice(1), {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
    }),
  );
  const log: EditorLog = { updates: [], permissions: [], stderr: "", code: null };
  child.stderr.on("data", (chunk) => (log.stderr += chunk));
  const exited = new Promise<void>((resolve) =>
    child.on("close", (code) => {
      log.code = code;
      resolve();
    }),
  );
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  const app = acpClient({ name: "test-editor" })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      log.permissions.push(params);
      return { outcome: { outcome: "selected", optionId: options.answer(params) } };
    })
    .onNotification(methods.client.session.update, ({ params }) => {
      log.updates.push(params);
    });
  try {
    await app.connectWith(stream, (ctx) => work(ctx, log));
  } finally {
    child.stdin.end();
    await exited;
  }
  return log;
}

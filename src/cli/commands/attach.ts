// `harness attach [session]`: a served session (harness serve) in this terminal, as the chat:
// the same loop, line editor, renderer and permission questions as `harness` (ui/chat.ts), over
// the server's API and event stream (attached-session.ts). The kept events are drawn first, then
// the live ones; runs other clients start are drawn as they come. Detaching (/detach, /exit,
// Ctrl-D, Ctrl-C twice) leaves the session running in the server.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { redactWrites } from "../../core/stream-redactor.ts";
import { secretPaths } from "../../permissions/secret-paths.ts";
import type { ServeClient } from "../../server/serve-client.ts";
import { showControlChars } from "../../shared/control-chars.ts";
import { secretValuesOf } from "../../shared/redact.ts";
import { stateDir } from "../../wiring/defaults.ts";
import { parseFlags, UsageError } from "../cli-args.ts";
import { serveFileOf } from "./serve.ts";

const HELP = `Usage: harness attach [session] [--url <url>]

The chat, attached to a session harness serve holds: its events so far, then as they come
(runs other clients start too). A line is the next prompt; questions are asked as in the chat;
Esc or Ctrl-C interrupts the running prompt, /model <name> switches the model, /undo [n] undoes.
/detach, /exit, Ctrl-D or Ctrl-C twice leave it running in the server.
  session        an id or its first characters (default: the latest session; with none, a new
                 one in the current folder)
  --url <url>    the server (default: the one in $HARNESS_HOME/serve.json); its token comes from
                 that file, or from HARNESS_SERVE_TOKEN
`;

export const ATTACH_FLAGS = ["url", "help"] as const;

export async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseFlags(argv, ATTACH_FLAGS, { positionals: true });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`harness attach: ${showControlChars(error.message)}\nTry 'harness attach --help'.\n`);
    return 2;
  }
  if (parsed.flags.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const connection = connectionFor(parsed.flags.url, process.env);
  if (typeof connection === "string") {
    process.stderr.write(`harness attach: ${connection}\n`);
    return 1;
  }
  const { ServeClient, ServeClientError } = await import("../../server/serve-client.ts");
  const client = new ServeClient(connection);
  try {
    const id = await sessionToAttach(client, parsed.positionals[0]);
    await attach(client, id);
    return 0;
  } catch (error) {
    if (!(error instanceof ServeClientError) && !(error instanceof TypeError)) throw error;
    process.stderr.write(`harness attach: ${showControlChars(error.message)}\n`);
    return 1;
  }
}

function connectionFor(url: string | undefined, env: NodeJS.ProcessEnv): { url: string; token: string } | string {
  let record: { url?: string; token?: string } = {};
  try {
    record = JSON.parse(readFileSync(serveFileOf(env), "utf8"));
  } catch {
    // no server of this user's running, or another address given
  }
  const token = env.HARNESS_SERVE_TOKEN ?? record.token;
  const at = url ?? record.url;
  if (!at) return `no server found in ${serveFileOf(env)}: start one with harness serve, or give --url`;
  if (!token) return "no token: set HARNESS_SERVE_TOKEN to the token harness serve printed";
  return { url: at.endsWith("/") ? at : `${at}/`, token };
}

async function sessionToAttach(client: ServeClient, given: string | undefined): Promise<string> {
  const sessions = await client.listSessions();
  if (given !== undefined) {
    const matches = sessions.filter((session) => session.id.startsWith(given));
    if (matches.length === 0) {
      // Not served (the server was restarted, say): a stored session of that id is served again.
      const resumed = await client.createSession({ resume: given });
      process.stderr.write(`harness attach: serving ${resumed.id} again (in ${showControlChars(resumed.cwd)})\n`);
      return resumed.id;
    }
    if (matches.length !== 1) throw new TypeError(`${given} names ${matches.length} sessions`);
    return matches[0].id;
  }
  if (sessions.length > 0) return sessions[sessions.length - 1].id;
  const made = await client.createSession({ cwd: process.cwd() });
  process.stderr.write(`harness attach: started session ${made.id} in ${process.cwd()}\n`);
  return made.id;
}

/**
 * The chat (ui/chat.ts, the same loop, editor, renderer and questions as `harness`) over the
 * served session, until the person detaches; the session goes on in the server.
 */
async function attach(client: ServeClient, id: string): Promise<void> {
  const [{ runChat }, { createLineReader }, { createTerminalAsk }, { paletteFor }, slash, { ShownDiffs }] =
    await Promise.all([
      import("../../ui/chat.ts"),
      import("../../ui/editor/line-reader.ts"),
      import("../../ui/approval.ts"),
      import("../../ui/colors.ts"),
      import("../../ui/slash-commands.ts"),
      import("../../ui/shown-diffs.ts"),
    ]);
  const { AttachedSession } = await import("./attached-session.ts");
  const { AttachedControls } = await import("./attach-controls.ts");
  const { loadChatHistory } = await import("../../wiring/stored-sessions.ts");
  const { stdin, stdout, env } = process;
  const stderr = redactWrites(process.stderr, secretValuesOf(env));
  const colors = paletteFor(stderr, env);
  const summary = await client.session(id);
  const reader = createLineReader({
    stdin,
    stdout,
    env,
    cwd: summary.cwd,
    history: loadChatHistory(env),
    commands: [...slash.commandNames([]), "/detach"],
  });
  const shownDiffs = new ShownDiffs();
  const ask = createTerminalAsk({ ask: reader.ask.bind(reader), colors, columns: stderr.columns || 80, shownDiffs });
  const note = (text: string) => reader.sayAbove(() => stderr.write(`${colors.dim(showControlChars(text))}\n`));
  const session = new AttachedSession(client, summary, ask, note);
  const controls = new AttachedControls(client, session);
  stderr.write(`${colors.dim(`attached to ${id} in ${showControlChars(summary.cwd)}; /detach leaves it running`)}\n`);
  const following = new AbortController();
  const followed = session.follow(following.signal);
  try {
    await runChat(
      {
        run: session.run,
        elsewhere: session.elsewhere,
        title: session.title,
        cwd: summary.cwd,
        secretPaths: secretPaths(env.HOME || homedir(), stateDir(env), env),
        stdout,
        stderr,
        env,
        colors,
        shownDiffs,
        runCommand: (line) =>
          line.trim() === "/detach"
            ? Promise.resolve("exit")
            : slash.isSlashCommand(line)
              ? slash.runSlashCommand(line, controls, stderr, colors)
              : undefined,
      },
      reader,
    );
  } finally {
    following.abort();
    await followed;
  }
  stderr.write(`${colors.dim(`detached; ${id} goes on in the server (harness attach ${id})`)}\n`);
}

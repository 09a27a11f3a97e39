// `harness attach [session]`: a served session (harness serve) in this terminal, in line mode:
// its events drawn by the chat's renderer as they come (the kept ones first), a line typed is the
// next prompt, y/n/a answers the question on screen. Detaching (EOF, Ctrl-C, /detach) leaves the
// session running in the server. Not the full chat (its editor, slash commands, pinned input):
// that would need the chat over the client, which is more than this command is yet.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import type { ServeClient, ServerEvent } from "../../server/serve-client.ts";
import { showControlChars } from "../../shared/control-chars.ts";
import { parseFlags, UsageError } from "../cli-args.ts";
import { serveFileOf } from "./serve.ts";

const HELP = `Usage: harness attach [session] [--url <url>]

Watches and steers a session harness serve holds: its events so far, then as they come.
Type a line to send it as the next prompt; when a question is shown, y allows, n denies,
a allows always (where offered). /interrupt stops the running prompt, /model <name> switches
the model, /undo undoes the last turn. /detach, Ctrl-D or Ctrl-C leave it running in the server.
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
    if (matches.length !== 1)
      throw new TypeError(
        matches.length === 0 ? `no served session starts with ${given}` : `${given} names ${matches.length} sessions`,
      );
    return matches[0].id;
  }
  if (sessions.length > 0) return sessions[sessions.length - 1].id;
  const made = await client.createSession({ cwd: process.cwd() });
  process.stderr.write(`harness attach: started session ${made.id} in ${process.cwd()}\n`);
  return made.id;
}

/** Draws the session's events and sends what is typed, until the person detaches. */
async function attach(client: ServeClient, id: string): Promise<void> {
  const { TerminalRenderer } = await import("../../ui/render/terminal-renderer.ts");
  const renderer = new TerminalRenderer({
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    replies: "stream",
    showTrace: true,
  });
  const say = (line: string) => {
    renderer.pause();
    process.stderr.write(`${showControlChars(line)}\n`);
  };
  say(`attached to ${id}: type a prompt; /detach leaves it running`);
  const questions: string[] = [];
  const stop = new AbortController();
  const drawEvent = (event: ServerEvent) => {
    switch (event.type) {
      case "question":
        questions.push(event.questionId);
        say(`? ${event.summary}${event.why ? ` (${event.why})` : ""}`);
        if (event.diff) say(event.diff);
        say(event.remember.length > 0 ? `  allow? y / n / a (always: ${event.remember.join(", ")})` : "  allow? y / n");
        return;
      case "question_answered":
        questions.splice(questions.indexOf(event.questionId) >>> 0, 1);
        say(`  answered: ${event.answer}`);
        return;
      case "model_changed":
        return say(`model: ${event.provider} ${event.model}`);
      case "undone":
        return say(`undid ${event.turns} turn(s): ${event.files.join(", ") || "no files changed"}`);
      case "server_error":
        return say(`error: ${event.error}`);
      default:
        renderer.handle(event);
    }
  };
  const watching = (async () => {
    for await (const item of client.events(id, { signal: stop.signal }))
      if (item.id === undefined) say("(older events are no longer kept)");
      else drawEvent(item.event);
  })().catch((error) => {
    if (!stop.signal.aborted) say(`the event stream ended: ${(error as Error).message}`);
  });
  const lines = createInterface({ input: process.stdin, terminal: false });
  process.once("SIGINT", () => lines.close());
  for await (const line of lines) {
    const text = line.trim();
    if (!text) continue;
    if (text === "/detach") break;
    try {
      await act(client, id, text, questions);
    } catch (error) {
      say(`refused: ${(error as Error).message}`);
    }
  }
  stop.abort();
  await watching;
  say(`detached; ${id} goes on in the server (harness attach ${id})`);
}

async function act(client: ServeClient, id: string, text: string, questions: string[]): Promise<void> {
  const answers: Record<string, "yes" | "no" | "always"> = { y: "yes", n: "no", a: "always" };
  if (questions.length > 0 && answers[text.toLowerCase()])
    return client.answer(id, questions[0], answers[text.toLowerCase()]);
  if (text === "/interrupt") {
    await client.interrupt(id);
    return;
  }
  if (text === "/undo") {
    await client.undo(id, 1);
    return;
  }
  if (text.startsWith("/model ")) {
    await client.switchModel(id, text.slice("/model ".length).trim());
    return;
  }
  await client.prompt(id, text);
}

// `harness export [id] [--html|--md] [-o file]`: a session as a self-contained HTML page or as Markdown.

import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { exportHtml } from "../../session/export-html.ts";
import { exportMarkdown } from "../../session/export-md.ts";
import { findLatestSession, findSessionByPrefix, SessionLookupError } from "../../session/session-list.ts";
import { readSession, SessionReadError } from "../../session/session-reader.ts";
import { showControlChars } from "../../shared/control-chars.ts";
import { stateDir } from "../../wiring/defaults.ts";

const USAGE = `Usage: harness export [id] [--html|--md] [-o file]
  id          a session id or a unique prefix of one (default: the latest session in this directory)
  --html      a self-contained page (the default), written to <id>.html here unless -o is given
  --md        Markdown, printed on stdout unless -o is given
  -o <file>   where to write ("-" for stdout); a .md name picks Markdown
A page written to a file prints its path on stdout.
`;

export async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        html: { type: "boolean" },
        md: { type: "boolean" },
        output: { type: "string", short: "o" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    });
    if (parsed.values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    if (parsed.values.html && parsed.values.md) throw new Error("choose one of --html and --md");
    if (parsed.positionals.length > 1) throw new Error("give one session id");
  } catch (error) {
    const { argvErrorMessage } = await import("../cli-args.ts");
    process.stderr.write(`harness: ${argvErrorMessage(error, ["html", "md", "help"])}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const sessionsDir = join(stateDir(process.env), "sessions");
  let session;
  try {
    const file = positionals[0]
      ? findSessionByPrefix(sessionsDir, positionals[0])
      : findLatestSession(sessionsDir, process.cwd(), "export");
    session = readSession(file.path);
  } catch (error) {
    if (!(error instanceof SessionLookupError || error instanceof SessionReadError)) throw error;
    process.stderr.write(`harness: ${showControlChars(error.message)}\n`);
    return 2;
  }
  for (const notice of session.notices) process.stderr.write(`harness: ${showControlChars(notice)}\n`);

  // Markdown goes to stdout by default (pipe it anywhere); a page is a file to open.
  const isMarkdown = values.md || (!values.html && /\.(md|markdown)$/i.test(values.output ?? ""));
  const text = isMarkdown ? exportMarkdown(session) : exportHtml(session);
  const target = values.output ?? (isMarkdown ? "-" : `${session.header.id}.html`);
  if (target === "-") {
    process.stdout.write(text);
    return 0;
  }
  const path = resolve(target);
  writeFileSync(path, text);
  process.stdout.write(`${path}\n`); // so scripts can open what was written

  return 0;
}

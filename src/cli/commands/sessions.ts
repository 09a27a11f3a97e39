// `harness sessions`: the newest sessions, one per line: id, last activity, directory, turns, first prompt.
import { join } from "node:path";
import { parseArgs } from "node:util";
import { formatSessionList, summarizeSessions } from "../../session/session-list.ts";
import { countOf } from "../../shared/helpers.ts";
import { stateDir } from "../../wiring/defaults.ts";

/** Sessions listed without --all. */
const LISTED_SESSIONS = 20;

const USAGE = "Usage: harness sessions [--all]   (newest first; continue one with harness -r <id>)\n";

export async function run(argv: string[]): Promise<number> {
  let all: boolean;
  try {
    const { values } = parseArgs({
      args: argv,
      options: { all: { type: "boolean" }, help: { type: "boolean", short: "h" } },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    all = Boolean(values.all);
  } catch (error) {
    const { argvErrorMessage } = await import("../cli-args.ts");
    process.stderr.write(`harness: ${argvErrorMessage(error, ["all", "help"])}\n${USAGE}`);
    return 2;
  }
  const { summaries, more } = summarizeSessions(
    join(stateDir(process.env), "sessions"),
    all ? Number.POSITIVE_INFINITY : LISTED_SESSIONS,
  );
  if (summaries.length === 0) {
    process.stderr.write("no sessions yet\n");
    return 0;
  }
  process.stdout.write(`${formatSessionList(summaries).join("\n")}\n`);
  if (more > 0) process.stderr.write(`… ${countOf(more, "older session")} (harness sessions --all)\n`);
  return 0;
}

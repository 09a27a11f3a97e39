// The chat's first screen (issue 50): what setting a session up has to say (settings not taken,
// a rule naming no tool, an MCP server that cannot start, no sandbox) would fill a small terminal
// on every start. So the chat says it once per change, in at most one line: the first start in a
// folder, and again whenever one of the files it comes from changes (or what is said does). A
// single notice that fits the row is shown whole; more are one line naming `harness doctor`,
// which lists the last start's notices for the folder. Headless runs say every warning, every
// time (a script's log is read later, by someone who was not there).
//
// What was said is remembered per folder in $HARNESS_HOME/notices/<hash of the folder>.json: a
// hash of the notices and of every settings file, config.json and .mcp.json (their contents), and
// the notices themselves for `harness doctor`.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { projectMcpPath } from "../settings/mcp-servers.ts";
import { settingsSources } from "../settings/settings-file.ts";
import { wrapToWidth } from "../ui/text-width.ts";
import { configPath } from "../wiring/config-file.ts";
import { stateDir } from "../wiring/defaults.ts";

interface Remembered {
  folder: string;
  hash: string;
  notices: string[];
}

/** Collects a chat's setup warnings, then says them once per change (`settle`). */
export class StartupNotices {
  private readonly collected: string[] = [];
  private isSettingUp = true;

  constructor(private readonly say: (message: string) => void) {}

  /** The session's warn: held while it is set up, said at once afterwards (a server failing later, say). */
  readonly warn = (message: string): void => {
    if (this.isSettingUp) this.collected.push(message);
    else this.say(message);
  };

  /** Setup failed: everything held is said, as a headless run says it. */
  sayAll(): void {
    this.isSettingUp = false;
    for (const message of this.collected) this.say(message);
  }

  /**
   * Setup is done: the line to show (already wrapped at words to `columns`), or undefined when
   * nothing changed since these notices were last shown in this folder.
   */
  settle(cwd: string, env: NodeJS.ProcessEnv, columns: number): string | undefined {
    this.isSettingUp = false;
    const notices = this.collected;
    const file = rememberedFile(cwd, env);
    const hash = hashOf(notices, sourceFiles(cwd, env));
    if (readRemembered(file)?.hash === hash) return undefined;
    try {
      mkdirSync(join(stateDir(env), "notices"), { recursive: true, mode: 0o700 });
      writeFileSync(file, `${JSON.stringify({ folder: cwd, hash, notices } satisfies Remembered)}\n`, { mode: 0o600 });
    } catch {
      // A read-only home: shown again next time, which loses nothing.
    }
    if (notices.length === 0) return undefined;
    const single = `harness: ${notices[0]}`;
    if (notices.length === 1 && single.length <= columns && !single.includes("\n")) return single;
    return wrapToWidth(`harness: ${notices.length} setup notices; harness doctor lists them`, columns);
  }
}

/** The notices the last chat start in `cwd` had (`harness doctor`); empty when none was remembered. */
export function lastStartNotices(cwd: string, env: NodeJS.ProcessEnv): string[] {
  return readRemembered(rememberedFile(cwd, env))?.notices ?? [];
}

function rememberedFile(cwd: string, env: NodeJS.ProcessEnv): string {
  const folder = createHash("sha256").update(cwd).digest("hex").slice(0, 32);
  return join(stateDir(env), "notices", `${folder}.json`);
}

function readRemembered(file: string): Remembered | undefined {
  try {
    const data = JSON.parse(readFileSync(file, "utf8")) as Partial<Remembered>;
    return typeof data.hash === "string" && Array.isArray(data.notices) ? (data as Remembered) : undefined;
  } catch {
    return undefined;
  }
}

/** The files a setup notice can come from. */
function sourceFiles(cwd: string, env: NodeJS.ProcessEnv): string[] {
  const { user, project } = settingsSources(cwd, stateDir(env), env);
  return [...user, ...project].map((source) => source.path).concat(configPath(env), projectMcpPath(cwd));
}

function hashOf(notices: string[], files: string[]): string {
  const hash = createHash("sha256").update(JSON.stringify(notices));
  for (const file of files) {
    hash.update(`\0${file}\0`);
    if (existsSync(file)) {
      try {
        hash.update(readFileSync(file));
      } catch {
        hash.update("(unreadable)");
      }
    }
  }
  return hash.digest("hex");
}

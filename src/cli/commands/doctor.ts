// `harness doctor`: the checks a user needs when something fails, each one line with what to do:
// Node, the state folder, config.json, the settings files, the provider and where its key comes
// from (never the key), the proxy, the sandbox, MCP servers' programs, the optional programs
// some tools use, and the local model's runtime. Exit 1 when a check fails, 0 otherwise; it sends
// nothing to any model and starts no MCP server. Each check is a record of `CHECKS`.

import { accessSync, constants, existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, resolve } from "node:path";
import { probeSandbox } from "../../sandbox/detect-sandbox.ts";
import { loadMcpServers, projectMcpServers, userMcpServers } from "../../settings/mcp-servers.ts";
import { readSettingsFile, settingsSources } from "../../settings/settings-file.ts";
import { showControlChars } from "../../shared/control-chars.ts";
import { PRIVATE_FOLDER_MODE } from "../../shared/private-files.ts";
import { proxyFor } from "../../shared/proxy.ts";
import { redactText, secretValuesOf } from "../../shared/redact.ts";
import { findExecutable, findSystemProgram } from "../../shared/system-program.ts";
import { configPath, type HarnessConfig, loadConfigFile } from "../../wiring/config-file.ts";
import { stateDir } from "../../wiring/defaults.ts";
import { resolveProvider } from "../../wiring/resolve-provider.ts";
import { lastStartNotices } from "../startup-notices.ts";

const HELP = `Usage: harness doctor

Checks what harness needs, one line each: Node, the state folder, config.json, the settings
files, the provider and where its key comes from (never the key itself), the proxy, the
sandbox, the MCP servers' programs, optional programs and the local model's runtime.
Exits 1 when a check fails. Sends nothing to a model and starts no MCP server.
`;

type Status = "ok" | "warn" | "fail";

interface Finding {
  status: Status;
  text: string;
}

interface Place {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** config.json as read once, or nothing when it cannot be (the config check says why, once). */
  config: HarnessConfig;
}

type Check = (place: Place) => Finding[] | Promise<Finding[]>;

const ok = (text: string): Finding => ({ status: "ok", text });
const warn = (text: string): Finding => ({ status: "warn", text });
const fail = (text: string): Finding => ({ status: "fail", text });

/** The oldest Node harness supports (package.json's engines). */
const OLDEST_NODE_MAJOR = 20;

/** Programs some tools use, and what is lost without them. */
const OPTIONAL_PROGRAMS: Record<string, string> = {
  git: "undo snapshots, worktrees and the git tools' context",
  rg: "grep is slower (it falls back to its own search)",
};

const CHECKS: Check[] = [
  function node() {
    const major = Number(process.versions.node.split(".")[0]);
    return [
      major >= OLDEST_NODE_MAJOR
        ? ok(`Node ${process.version}`)
        : fail(`Node ${process.version}: harness needs ${OLDEST_NODE_MAJOR} or later`),
    ];
  },
  function stateFolder({ env }) {
    const folder = stateDir(env);
    if (!existsSync(folder)) return [ok(`state folder ${folder} (made at the first run)`)];
    const mode = statSync(folder).mode & 0o777;
    try {
      accessSync(folder, constants.W_OK);
    } catch {
      return [
        fail(`state folder ${folder} is not writable: sessions cannot be saved; fix its owner or set HARNESS_HOME`),
      ];
    }
    return [
      (mode & 0o077) === 0
        ? ok(`state folder ${folder}`)
        : warn(
            `state folder ${folder} is open to others (mode ${mode.toString(8)}): chmod ${PRIVATE_FOLDER_MODE.toString(8)} ${folder}`,
          ),
    ];
  },
  // What the last chat start here said once (cli/startup-notices.ts): the chat's one line points here.
  function notices({ cwd, env }) {
    return lastStartNotices(cwd, env).map((notice) => warn(`notice at the last chat start here: ${notice}`));
  },
  function config({ env }) {
    const path = configPath(env);
    try {
      loadConfigFile(env);
      return [ok(existsSync(path) ? `config ${path}` : `config: none (${path} is optional)`)];
    } catch (error) {
      return [fail(`config: ${(error as Error).message}`)]; // the message names the file
    }
  },
  function settings({ cwd, env }) {
    const { user, project } = settingsSources(cwd, stateDir(env), env);
    return [...user, ...project].flatMap((source): Finding[] => {
      try {
        const data = readSettingsFile(source);
        if (!data) return [];
        return [ok(`settings ${source.path}`), ...data.notices.map((notice) => warn(notice))];
      } catch (error) {
        return [fail(`settings: ${(error as Error).message}`)]; // the message names the file
      }
    });
  },
  function provider({ env, config }) {
    try {
      const settings = resolveProvider({}, env, config);
      const key = settings.apiKey
        ? `key from ${settings.keyEnv ?? "config.json"}`
        : "no key (a local server needs none)";
      const where = settings.baseUrl ? withoutCredentials(settings.baseUrl) : "in-process";
      return [ok(`provider ${settings.name}, model ${settings.model}, ${where}; ${key}`)];
    } catch (error) {
      return [fail(`provider: ${(error as Error).message}`)];
    }
  },
  function proxy({ env, config }) {
    let target: URL;
    try {
      const settings = resolveProvider({}, env, config);
      if (!settings.baseUrl) return [];
      target = new URL(settings.baseUrl);
    } catch {
      return []; // the provider check says why
    }
    try {
      const proxy = proxyFor(target, env);
      return [ok(proxy ? `proxy ${proxy.host} for ${target.host}` : `no proxy for ${target.host}`)];
    } catch (error) {
      return [fail(`proxy: ${(error as Error).message}`)];
    }
  },
  async function sandbox() {
    const support = await probeSandbox();
    if (support.kind !== "none") return [ok(`sandbox: ${support.kind}`)];
    return [warn(`sandbox: none (${support.problem}); every command asks. ${support.fix}`)];
  },
  function mcpServers({ cwd, env, config }) {
    const found: Finding[] = [];
    let servers;
    try {
      const sources = [userMcpServers(config.mcpServers, configPath(env), env), projectMcpServers(cwd, env, {})];
      servers = loadMcpServers(sources, (message) => found.push(warn(message)));
    } catch (error) {
      return [fail(`MCP servers: ${(error as Error).message}`)];
    }
    for (const server of servers) {
      if (server.transport !== "stdio") {
        found.push(ok(`MCP server ${server.name}: ${withoutCredentials(server.url)}`));
        continue;
      }
      const program = findProgram(server.command, server.cwd ?? cwd, env);
      found.push(
        program
          ? ok(`MCP server ${server.name}: ${program}`)
          : fail(`MCP server ${server.name}: "${server.command}" is not found on PATH; install it or fix .mcp.json`),
      );
    }
    return found;
  },
  function programs({ env }) {
    return Object.entries(OPTIONAL_PROGRAMS).map(([name, without]) => {
      // Found as harness finds its helpers (the PATH's trusted folders), so the line says what runs.
      const program = findSystemProgram(name, env.PATH ?? "");
      return program ? ok(`${name}: ${program}`) : warn(`${name} not found: ${without}`);
    });
  },
  function localModel() {
    try {
      createRequire(import.meta.url).resolve("node-llama-cpp");
      return [ok("local model runtime: node-llama-cpp is installed")];
    } catch {
      return [ok("local model runtime: not installed (optional; --provider local offers to install it)")];
    }
  },
];

/** config.json as read, or nothing when it cannot be (the config check says why, once). */
function configOrNone(env: NodeJS.ProcessEnv): HarnessConfig {
  try {
    return loadConfigFile(env);
  } catch {
    return {};
  }
}

/** Where `command` runs from: a path as written, or the first match on PATH (findExecutable); undefined when nowhere. */
function findProgram(command: string, cwd: string, env: NodeJS.ProcessEnv): string | undefined {
  if (!command.includes("/")) return findExecutable(command, env.PATH ?? "");
  const file = isAbsolute(command) ? command : resolve(cwd, command);
  return findExecutable(basename(file), dirname(file));
}

/** A URL as shown: no user or password in it. */
function withoutCredentials(url: string): string {
  try {
    const shown = new URL(url);
    shown.username = "";
    shown.password = "";
    return shown.href;
  } catch {
    return url;
  }
}

const MARKS: Record<Status, string> = { ok: "ok  ", warn: "warn", fail: "FAIL" };

export async function run(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(HELP);
    return 0;
  }
  if (argv.length > 0) {
    process.stderr.write(`harness doctor: takes no arguments (got ${showControlChars(argv.join(" "), "")})\n`);
    return 2;
  }
  const env = { HOME: homedir(), ...process.env };
  const place = { cwd: process.cwd(), env, config: configOrNone(env) };
  // Error texts quote files and servers the user did not write: no key and no escape sequence.
  const secrets = secretValuesOf(place.env);
  let failed = false;
  for (const check of CHECKS) {
    for (const finding of await check(place)) {
      failed ||= finding.status === "fail";
      process.stdout.write(`${MARKS[finding.status]}  ${redactText(showControlChars(finding.text, ""), secrets)}\n`);
    }
  }
  return failed ? 1 : 0;
}

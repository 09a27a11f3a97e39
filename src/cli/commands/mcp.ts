// `harness mcp list`: the configured MCP servers, whether they start, and the tools they offer
// (as the model sees them: `server__tool`).

import { homedir } from "node:os";
import { parseArgs } from "node:util";
import { mcpToolName } from "../../mcp/mcp-tool.ts";
import { filterCommandEnv } from "../../permissions/command-env.ts";
import { settleFolderTrust } from "../../permissions/folder-trust.ts";
import { loadSettings, SettingsError } from "../../permissions/permission-settings.ts";
import { loadMcpServers, projectMcpServers, userMcpServers } from "../../settings/mcp-servers.ts";
import { showControlChars } from "../../shared/control-chars.ts";
import { countOf } from "../../shared/helpers.ts";
import { redactText, secretValuesOf } from "../../shared/redact.ts";
import { prepareBase64Image } from "../../tools/image-file.ts";
import { configPath, loadConfigFile } from "../../wiring/config-file.ts";
import { ConfigError, stateDir } from "../../wiring/defaults.ts";

const HELP = `Usage: harness mcp list [--trust]

Starts each MCP server declared under "mcpServers" in $HARNESS_HOME/config.json and ./.mcp.json,
lists the tools it offers (as the model sees them), then stops it. The servers of ./.mcp.json
start only in a trusted folder (or with --trust), as in a run.
Exit 0 when every server started, 1 when one failed.
`;

/** Characters of a tool description shown after its name. */
const DESCRIPTION_WIDTH = 80;

export async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { help: { type: "boolean", short: "h" }, trust: { type: "boolean" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    process.stderr.write(`harness mcp: ${showControlChars((error as Error).message)}\nTry 'harness mcp --help'.\n`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (parsed.positionals[0] !== "list" || parsed.positionals.length > 1) {
    process.stderr.write(
      `harness mcp: unknown command${parsed.positionals.length ? ` "${parsed.positionals.join(" ")}"` : ""}; try 'harness mcp list'\n`,
    );
    return 2;
  }
  const { env, stdout, stderr } = process;
  const cwd = process.cwd();
  const home = stateDir(env);
  let settings;
  let config;
  try {
    settings = loadSettings(cwd, home, env);
    config = loadConfigFile(env);
  } catch (error) {
    if (!(error instanceof SettingsError) && !(error instanceof ConfigError)) throw error;
    stderr.write(`harness mcp: ${showControlChars(error.message)}\n`);
    return 2;
  }
  const secrets = secretValuesOf(env);
  const warn = (message: string) => stderr.write(`harness mcp: ${showControlChars(redactText(message, secrets))}\n`);
  const trust = await settleFolderTrust({
    cwd,
    harnessHome: home,
    home: env.HOME || homedir(),
    flag: Boolean(parsed.values.trust),
    trustedFolders: settings.trustedFolders,
  });
  if (trust.report) warn(trust.report);
  const commandEnv = filterCommandEnv(env, settings);
  const files = [userMcpServers(config.mcpServers, configPath(env), env), projectMcpServers(cwd, env, commandEnv)];
  const servers = loadMcpServers(trust.isTrusted ? files : files.slice(0, 1), warn);
  if (servers.length === 0) {
    stdout.write(
      `no MCP servers configured (add "mcpServers" to ${showControlChars(files.map((file) => file.path).join(" or "), "")})\n`,
    );
    return 0;
  }
  const { connectMcpServers, shownUrl } = await import("../../mcp/connect.ts");
  // Failures are printed in the listing itself, not as warnings.
  const connections = await connectMcpServers(servers, {
    cwd,
    env: commandEnv,
    warn: () => {},
    prepareImage: prepareBase64Image,
  });
  // Every name, description, error and command comes from a settings file or a server: each
  // line goes out with its control characters shown (a server's description with OSC 52 in it).
  const print = (line: string) => stdout.write(`${showControlChars(line, "")}\n`);
  try {
    for (const [index, status] of connections.servers.entries()) {
      const config = servers[index];
      const where =
        config.transport === "stdio"
          ? [config.command, ...config.args].join(" ")
          : `${shownUrl(config.url)} (${config.transport})`;
      if (!status.ok) {
        print(`${status.name}: failed: ${redactText(status.error, secrets)}`);
        print(`  ${where}`);
        continue;
      }
      print(`${status.name}: ${countOf(status.tools.length, "tool")}`);
      print(`  ${where}`);
      for (const tool of status.tools)
        print(`  ${mcpToolName(status.name, tool.name)}  ${shorten(tool.description ?? "")}`);
    }
  } finally {
    await connections.close();
  }
  return connections.servers.every((status) => status.ok) ? 0 : 1;
}

function shorten(text: string): string {
  const line = text.split("\n")[0].trim();
  return line.length > DESCRIPTION_WIDTH ? `${line.slice(0, DESCRIPTION_WIDTH - 3)}...` : line;
}

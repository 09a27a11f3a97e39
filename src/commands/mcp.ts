// `harness mcp list`: the configured MCP servers, whether they start, and the tools they offer
// (as the model sees them: `server__tool`).
import { parseArgs } from "node:util";
import { stateDir } from "../config.ts";
import { loadMcpServers, mcpConfigPaths } from "../mcp/config.ts";
import { mcpToolName } from "../mcp/mcp-tool.ts";

const HELP = `Usage: harness mcp list

Starts each MCP server declared under "mcpServers" in $HARNESS_HOME/config.json and ./.mcp.json,
lists the tools it offers (as the model sees them), then stops it.
Exit 0 when every server started, 1 when one failed.
`;

/** Characters of a tool description shown after its name. */
const DESCRIPTION_WIDTH = 80;

export async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { help: { type: "boolean", short: "h" } }, allowPositionals: true, strict: true });
  } catch (error) {
    process.stderr.write(`harness mcp: ${(error as Error).message}\nTry 'harness mcp --help'.\n`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (parsed.positionals[0] !== "list" || parsed.positionals.length > 1) {
    process.stderr.write(`harness mcp: unknown command${parsed.positionals.length ? ` "${parsed.positionals.join(" ")}"` : ""}; try 'harness mcp list'\n`);
    return 2;
  }
  const { env, stdout, stderr } = process;
  const cwd = process.cwd();
  const paths = mcpConfigPaths(cwd, stateDir(env));
  const servers = loadMcpServers(paths, env, (message) => stderr.write(`harness mcp: ${message}\n`));
  if (servers.length === 0) {
    stdout.write(`no MCP servers configured (add "mcpServers" to ${paths.join(" or ")})\n`);
    return 0;
  }
  const { connectMcpServers } = await import("../mcp/connect.ts");
  // Failures are printed in the listing itself, not as warnings.
  const connections = await connectMcpServers(servers, { cwd, warn: () => {} });
  try {
    for (const [index, status] of connections.servers.entries()) {
      const config = servers[index];
      const where = config.transport === "stdio" ? [config.command, ...config.args].join(" ") : `${config.url} (${config.transport})`;
      if (!status.ok) {
        stdout.write(`${status.name}: failed: ${status.error}\n  ${where}\n`);
        continue;
      }
      stdout.write(`${status.name}: ${status.tools.length} tool${status.tools.length === 1 ? "" : "s"}\n  ${where}\n`);
      for (const tool of status.tools) stdout.write(`  ${mcpToolName(status.name, tool.name)}  ${shorten(tool.description ?? "")}\n`);
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

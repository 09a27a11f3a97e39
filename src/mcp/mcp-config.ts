// MCP server declarations, in the `mcpServers` format other tools share (Claude Code, Cursor,
// Claude Desktop): {"mcpServers": {"name": {"command", "args", "env"} | {"url", "headers"}}}.
// Read from `$HARNESS_HOME/config.json` (the user's servers) and `<cwd>/.mcp.json` (the
// project's, Claude Code's file, so a repository set up for it works here too; only in a
// trusted folder); a project server replaces a user server of the same name. Only the
// `mcpServers` key is read. Broken entries are reported and skipped: a bad server never stops
// the harness.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { describeIssues } from "../shared/describe-issue.ts";

/** A server started as a child process speaking MCP on its stdin and stdout. */
export interface StdioServerConfig {
  transport: "stdio";
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/** A remote server: streamable HTTP (the default) or the older SSE transport. */
export interface HttpServerConfig {
  transport: "http" | "sse";
  name: string;
  url: string;
  headers: Record<string, string>;
}

/** One configured server. */
export type McpServerConfig = StdioServerConfig | HttpServerConfig;

const stdioSchema = z.object({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().optional(),
});
const httpSchema = z.object({
  type: z.enum(["http", "streamable-http", "sse"]).optional(),
  url: z.string().min(1),
  headers: z.record(z.string(), z.string()).default({}),
});

/** The `mcpServers` key's shape for editors (docs/config.schema.json, docs/mcp.schema.json); reading it is tolerant (serversOfFile). */
export const mcpServersSchema = z
  .record(
    z.string(),
    z.union([
      stdioSchema.extend({ disabled: z.boolean().optional() }),
      httpSchema.extend({ disabled: z.boolean().optional() }),
    ]),
  )
  .describe(
    "MCP servers by name: {command, args, env, cwd} started locally, or {url, headers} remote; $VAR in braces expands",
  );

/** A file servers are read from, and what `${VAR}` in it may expand. */
export interface McpConfigFile {
  path: string;
  env: NodeJS.ProcessEnv;
  /** Variables left out of `env` on purpose (credentials, for a project file): naming one is reported. */
  withheld?: string[];
}

/** The user's servers, in `$HARNESS_HOME/config.json`: the user wrote them, so `${VAR}` may name any variable. */
export function userMcpFile(harnessHome: string, env: NodeJS.ProcessEnv): McpConfigFile {
  return { path: join(harnessHome, "config.json"), env };
}

/**
 * The project's servers, in `<cwd>/.mcp.json` (Claude Code's file): `${VAR}` expands only from
 * `commandEnv` (credentials removed), so a cloned repository cannot send a key anywhere.
 */
export function projectMcpFile(cwd: string, env: NodeJS.ProcessEnv, commandEnv: Record<string, string>): McpConfigFile {
  return {
    path: join(cwd, ".mcp.json"),
    env: commandEnv,
    withheld: Object.keys(env).filter((name) => env[name] !== undefined && !(name in commandEnv)),
  };
}

/** Every valid server of every file, later files winning on a name clash; `${VAR}` and `${VAR:-default}` are expanded from each file's env. */
export function loadMcpServers(files: McpConfigFile[], warn: (message: string) => void): McpServerConfig[] {
  const byName = new Map<string, McpServerConfig>();
  for (const file of files) for (const server of serversOfFile(file, warn)) byName.set(server.name, server);
  return [...byName.values()];
}

function serversOfFile(file: McpConfigFile, warn: (message: string) => void): McpServerConfig[] {
  const { path } = file;
  const reported = new Set<string>();
  const expand = (text: string) =>
    expandVariables(text, file, (name) => {
      if (reported.has(name)) return;
      reported.add(name);
      warn(
        `\${${name}} in ${path} is not expanded: a project's files may not read credentials (name it in env.passthrough of your own settings.json to allow it)`,
      );
    });
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    warn(`ignoring the MCP servers of ${path}: it is not valid JSON (${(error as Error).message})`);
    return [];
  }
  const servers = (json as { mcpServers?: unknown } | null)?.mcpServers;
  if (servers === undefined) return [];
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
    warn(
      `ignoring "mcpServers" in ${path}: it must be an object of server name → {command, args, env} or {url, headers}`,
    );
    return [];
  }
  const found: McpServerConfig[] = [];
  for (const [name, entry] of Object.entries(servers)) {
    const where = `mcpServers.${name} in ${path}`;
    if ((entry as { disabled?: unknown } | null)?.disabled === true) continue;
    const isRemote = typeof entry === "object" && entry !== null && "url" in entry;
    if (isRemote) {
      const parsed = httpSchema.safeParse(entry);
      if (!parsed.success) {
        warn(`ignoring ${where}: ${describeIssues(parsed.error)}`);
        continue;
      }
      const { type, url, headers } = parsed.data;
      found.push({
        transport: type === "sse" ? "sse" : "http",
        name,
        url: expand(url),
        headers: mapValues(headers, expand),
      });
      continue;
    }
    const parsed = stdioSchema.safeParse(entry);
    if (!parsed.success) {
      warn(`ignoring ${where}: give "command" (and "args", "env") for a local server, or "url" for a remote one`);
      continue;
    }
    const { command, args, env: serverEnv, cwd } = parsed.data;
    found.push({
      transport: "stdio",
      name,
      command: expand(command),
      args: args.map(expand),
      env: mapValues(serverEnv, expand),
      ...(cwd ? { cwd: expand(cwd) } : {}),
    });
  }
  return found;
}

/** `${VAR}` and `${VAR:-default}`, as in Claude Code's .mcp.json; an unset or withheld variable becomes its default or "". */
function expandVariables(text: string, file: McpConfigFile, onWithheld: (name: string) => void): string {
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_, name: string, fallback: string | undefined) => {
      if (file.withheld?.includes(name)) onWithheld(name);
      return file.env[name] || fallback || "";
    },
  );
}

function mapValues(record: Record<string, string>, map: (value: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));
}

// MCP server declarations, in the `mcpServers` format other tools share (Claude Code, Cursor,
// Claude Desktop): {"mcpServers": {"name": {"command", "args", "env", "cwd"} | {"url", "headers"}}}.
// Declared in `$HARNESS_HOME/config.json` (the user's servers; the file is read by
// config-file.ts, which hands its `mcpServers` here) and `<cwd>/.mcp.json` (the project's, Claude
// Code's file, so a repository set up for it works here too; only in a trusted folder); a project
// server replaces a user server of the same name. Only the `mcpServers` key is read. Broken
// entries are reported and skipped: a bad server never stops the harness.
//
// This is the one reader of `.mcp.json`: the loader (wiring/extensions.ts, `harness mcp list`)
// and the folder-trust question (permissions/folder-trust.ts) both take its typed records, so
// the question shows exactly the command, arguments, environment and folder a server would
// start with.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { showControlChars } from "../shared/control-chars.ts";
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

/** The `mcpServers` key's shape for editors (docs/config.schema.json, docs/mcp.schema.json); reading it is tolerant (declaredServers). */
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

/** What one file declares, as written (`${VAR}` not yet expanded): its servers, and each entry skipped with why. */
export interface DeclaredServers {
  servers: McpServerConfig[];
  /** One `ignoring …` line per entry (or whole file) that is not used. */
  problems: string[];
}

/** A file's declared servers, and what `${VAR}` in them may expand. */
export interface McpServerSource {
  path: string;
  declared: DeclaredServers;
  env: NodeJS.ProcessEnv;
  /** Variables left out of `env` on purpose (credentials, for a project file): naming one is reported. */
  withheld?: string[];
}

/**
 * The user's servers, the `mcpServers` of `$HARNESS_HOME/config.json` as config-file.ts read it:
 * the user wrote them, so `${VAR}` may name any variable.
 */
export function userMcpServers(mcpServers: unknown, configPath: string, env: NodeJS.ProcessEnv): McpServerSource {
  return { path: configPath, declared: declaredServers(mcpServers, configPath), env };
}

/** Where a folder's own servers are declared (Claude Code's file). */
export function projectMcpPath(cwd: string): string {
  return join(cwd, ".mcp.json");
}

/**
 * The project's servers, in `<cwd>/.mcp.json`: `${VAR}` expands only from `commandEnv`
 * (credentials removed), so a cloned repository cannot send a key anywhere.
 */
export function projectMcpServers(
  cwd: string,
  env: NodeJS.ProcessEnv,
  commandEnv: Record<string, string>,
): McpServerSource {
  const path = projectMcpPath(cwd);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    text = "";
  }
  return {
    path,
    declared: text ? mcpJsonServers(text, path) : { servers: [], problems: [] },
    env: commandEnv,
    withheld: Object.keys(env).filter((name) => env[name] !== undefined && !(name in commandEnv)),
  };
}

/** A `.mcp.json`'s text, read: its servers as written, or the one problem that it is not JSON. */
export function mcpJsonServers(text: string, path: string): DeclaredServers {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return {
      servers: [],
      problems: [`ignoring the MCP servers of ${path}: it is not valid JSON (${(error as Error).message})`],
    };
  }
  return declaredServers((json as { mcpServers?: unknown } | null)?.mcpServers, path);
}

/** The servers of an `mcpServers` value (absent: none), each entry checked on its own; disabled ones are left out. */
export function declaredServers(servers: unknown, path: string): DeclaredServers {
  if (servers === undefined) return { servers: [], problems: [] };
  if (typeof servers !== "object" || servers === null || Array.isArray(servers))
    return {
      servers: [],
      problems: [
        `ignoring "mcpServers" in ${path}: it must be an object of server name → {command, args, env} or {url, headers}`,
      ],
    };
  const declared: DeclaredServers = { servers: [], problems: [] };
  for (const [name, entry] of Object.entries(servers)) {
    const where = `mcpServers.${name} in ${path}`;
    if ((entry as { disabled?: unknown } | null)?.disabled === true) continue;
    const isRemote = typeof entry === "object" && entry !== null && "url" in entry;
    if (isRemote) {
      const parsed = httpSchema.safeParse(entry);
      if (!parsed.success) declared.problems.push(`ignoring ${where}: ${describeIssues(parsed.error)}`);
      else {
        const { type, url, headers } = parsed.data;
        declared.servers.push({ transport: type === "sse" ? "sse" : "http", name, url, headers });
      }
      continue;
    }
    const parsed = stdioSchema.safeParse(entry);
    if (!parsed.success) {
      declared.problems.push(
        `ignoring ${where}: give "command" (and "args", "env") for a local server, or "url" for a remote one`,
      );
      continue;
    }
    const { command, args, env, cwd } = parsed.data;
    declared.servers.push({ transport: "stdio", name, command, args, env, ...(cwd ? { cwd } : {}) });
  }
  return declared;
}

/**
 * Every valid server of every source, later sources winning on a name clash, with `${VAR}` and
 * `${VAR:-default}` expanded from each source's env; each problem is reported through `warn`.
 */
export function loadMcpServers(sources: McpServerSource[], warn: (message: string) => void): McpServerConfig[] {
  const byName = new Map<string, McpServerConfig>();
  for (const source of sources) {
    for (const problem of source.declared.problems) warn(problem);
    for (const server of expandedServers(source, warn)) byName.set(server.name, server);
  }
  return [...byName.values()];
}

function expandedServers(source: McpServerSource, warn: (message: string) => void): McpServerConfig[] {
  const reported = new Set<string>();
  const expand = (text: string) =>
    expandVariables(text, source, (name) => {
      if (reported.has(name)) return;
      reported.add(name);
      warn(
        `\${${name}} in ${source.path} is not expanded: a project's files may not read credentials (name it in env.passthrough of your own settings.json to allow it)`,
      );
    });
  return source.declared.servers.map((server): McpServerConfig => {
    if (server.transport !== "stdio")
      return { ...server, url: expand(server.url), headers: mapValues(server.headers, expand) };
    return {
      ...server,
      command: expand(server.command),
      args: server.args.map(expand),
      env: mapValues(server.env, expand),
      ...(server.cwd ? { cwd: expand(server.cwd) } : {}),
    };
  });
}

/**
 * What a server would run, for the folder-trust question, one line each: a local server's command
 * and arguments, then every variable of its `env` with its value, then its `cwd`, since any of
 * them decides what runs (`NODE_OPTIONS=--require ./x.js` makes a familiar `node server.js` run
 * the repository's code); a remote one's URL and headers. As written, `${VAR}` unexpanded (the
 * loader expands a project's only from the credential-free environment), every control
 * character shown as an escape, newlines too, so one value cannot forge another line.
 */
export function wouldRunOfServer(server: McpServerConfig): string[] {
  const name = oneLine(server.name);
  switch (server.transport) {
    case "http":
    case "sse":
      return [
        `MCP server ${name}: ${oneLine(server.url)}${server.transport === "sse" ? " (SSE)" : ""}`,
        ...Object.entries(server.headers).map(([header, value]) => `  header ${oneLine(header)}: ${oneLine(value)}`),
      ];
    case "stdio":
      return [
        `MCP server ${name}: ${[server.command, ...server.args].map(shownWord).join(" ")}`,
        ...Object.entries(server.env).map(([variable, value]) => `  env ${oneLine(variable)}=${shownWord(value)}`),
        ...(server.cwd === undefined ? [] : [`  cwd ${shownWord(server.cwd)}`]),
      ];
  }
}

/** A word of a command line as it would be one argument: quoted when empty or holding a space or quote. */
function shownWord(word: string): string {
  const shown = oneLine(word);
  return shown === "" || /[\s'"]/.test(shown) ? `'${shown.replace(/'/g, "'\\''")}'` : shown;
}

/** Text of a server's entry on one line: newlines too are shown as escapes, so a value cannot forge a line. */
function oneLine(text: string): string {
  return showControlChars(text, "");
}

/** `${VAR}` and `${VAR:-default}`, as in Claude Code's .mcp.json; an unset or withheld variable becomes its default or "". */
function expandVariables(text: string, source: McpServerSource, onWithheld: (name: string) => void): string {
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_, name: string, fallback: string | undefined) => {
      if (source.withheld?.includes(name)) onWithheld(name);
      return source.env[name] || fallback || "";
    },
  );
}

function mapValues(record: Record<string, string>, map: (value: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));
}

// Connections to MCP servers on @modelcontextprotocol/sdk. Loaded lazily (only when servers
// are configured), so runs without MCP never load the SDK.
//
// When servers start: all of them in parallel, in the background, as a session is set up; nothing
// waits for them (the chat's prompt is ready at once). Each server's tools join the session's list
// when it is up (Claude Code: "servers connect in the background and their tools become available
// as they finish"), so the model is offered them from its next request on. Each gets
// MCP_CONNECT_TIMEOUT_MS; one that fails or is too slow is reported once, in one line, and the
// session goes on without it. A call that names a tool of a server still starting waits for that
// start, so at most MCP_CONNECT_TIMEOUT_MS from launch (wiring/extensions.ts).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { assertNever } from "../core/messages.ts";
import type { Tool } from "../core/tool.ts";
import type { McpServerConfig } from "../settings/mcp-servers.ts";
import { fetchWithProxy } from "../shared/proxy-fetch.ts";
import { VERSION } from "../shared/version.ts";
import { type McpContent, type McpToolInfo, type PrepareImage, toHarnessTool } from "./mcp-tool.ts";

/** How long a server gets to start, initialise and list its tools (Claude Code's MCP_TIMEOUT default is 30 s too). */
export const MCP_CONNECT_TIMEOUT_MS = 30_000;
/** How long one tool call may take without a progress notification from the server. */
export const MCP_CALL_TIMEOUT_MS = 10 * 60_000;
/** Bound on `tools/list` pages followed for one server. */
const MAX_TOOL_PAGES = 20;
/** Tail of a stdio server's stderr kept to explain why it failed. */
const MAX_STDERR_TAIL = 2000;

/** What became of one server. */
export type McpServerStatus =
  | { name: string; ok: true; tools: McpToolInfo[] }
  | { name: string; ok: false; error: string };

/** The connected servers: their tools for the Agent, their status for `harness mcp list`, and a way to stop them. */
export interface McpConnections {
  tools: Tool[];
  servers: McpServerStatus[];
  close(): Promise<void>;
}

/** Servers starting in the background: each one's tools are handed on as it comes up. */
export interface McpStartup {
  /** Settles when the server has started or failed (each start is bounded by its timeout). */
  started(name: string): Promise<void>;
  /** Settles when every server has started or failed. */
  allStarted: Promise<McpConnections>;
  close(): Promise<void>;
}

interface ConnectOptions {
  cwd: string;
  /** What local servers run with (the bash tool's environment, credentials removed), their own `env` on top. */
  env: Record<string, string>;
  warn(message: string): void;
  /** How pictures in tool results are made fit for the model (tools/image-file.ts). */
  prepareImage: PrepareImage;
  timeoutMs?: number;
}

/** Starts every server and waits for all of them (`harness mcp list`). */
export function connectMcpServers(configs: McpServerConfig[], options: ConnectOptions): Promise<McpConnections> {
  return startMcpServers(configs, options, () => {}).allStarted;
}

/**
 * Starts every server without waiting; `onTools` gets each server's tools as it comes up. A server
 * that comes up after `close` is closed at once.
 */
export function startMcpServers(
  configs: McpServerConfig[],
  options: ConnectOptions,
  onTools: (tools: Tool[]) => void,
): McpStartup {
  const clients: Client[] = [];
  const tools: Tool[] = [];
  const statuses: McpServerStatus[] = [];
  let isClosed = false;
  // Closing the session stops the starts still under way (their processes end; no warning for them).
  const closing = new AbortController();
  const starts = configs.map(async (config) => {
    const { name } = config;
    const timeoutMs = options.timeoutMs ?? MCP_CONNECT_TIMEOUT_MS;
    const result = await connectOne(config, options.cwd, options.env, timeoutMs, closing.signal);
    if (isClosed && "error" in result) return;
    if ("error" in result) {
      options.warn(`MCP server "${name}" is not available: ${result.error}; going on without its tools`);
      statuses.push({ name, ok: false, error: result.error });
      return;
    }
    if (isClosed) return void (await result.client.close().catch(() => {}));
    clients.push(result.client);
    statuses.push({ name, ok: true, tools: result.tools });
    const added = result.tools.map((info) =>
      toHarnessTool(name, info, callerOf(name, result.client, options.warn), options.prepareImage),
    );
    tools.push(...added);
    onTools(added);
  });
  const close = async () => {
    isClosed = true;
    closing.abort();
    await Promise.allSettled(clients.map((client) => client.close()));
  };
  const byName = new Map(configs.map((config, index) => [config.name, starts[index]]));
  const allStarted = Promise.all(starts).then(() => ({
    tools,
    // In the configured order, whatever order they came up in.
    servers: configs.flatMap((config) => statuses.filter((status) => status.name === config.name)),
    close,
  }));
  return { started: async (name) => byName.get(name), allStarted, close };
}

/** Calls one server's tool; its first failure is said once, and the model sees every one. */
function callerOf(name: string, client: Client, warn: (message: string) => void) {
  let isReported = false;
  return async (tool: string, args: Record<string, unknown>, signal: AbortSignal) => {
    try {
      return (await client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: MCP_CALL_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
      })) as {
        content?: McpContent[];
        structuredContent?: unknown;
        isError?: boolean;
      };
    } catch (error) {
      const message = `the ${name} MCP server failed: ${messageOf(error)}`;
      if (!isReported && !signal.aborted) warn(message);
      isReported = true;
      throw new Error(message);
    }
  };
}

async function connectOne(
  config: McpServerConfig,
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
  closing: AbortSignal,
): Promise<{ client: Client; tools: McpToolInfo[] } | { error: string }> {
  if (config.transport !== "stdio" && !URL.canParse(config.url)) return { error: "its url is not a valid URL" };
  const client = new Client({ name: "harness", version: VERSION });
  let stderrTail = "";
  let transport: Transport;
  switch (config.transport) {
    case "stdio": {
      const stdio = new StdioClientTransport({
        command: config.command,
        args: config.args,
        env: { ...env, ...config.env },
        cwd: config.cwd ?? cwd,
        stderr: "pipe",
      });
      // A server's log lines are not ours to print; keep the end to explain a failure.
      stdio.stderr?.on(
        "data",
        (chunk: Buffer) => (stderrTail = (stderrTail + chunk.toString("utf8")).slice(-MAX_STDERR_TAIL)),
      );
      transport = stdio;
      break;
    }
    case "http":
      transport = new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: config.headers },
        fetch: fetchWithProxy,
      });
      break;
    case "sse":
      transport = new SSEClientTransport(new URL(config.url), {
        requestInit: { headers: config.headers },
        fetch: fetchWithProxy,
      });
      break;
    default:
      assertNever(config);
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const onClosing = () => controller.abort();
  closing.addEventListener("abort", onClosing, { once: true });
  try {
    await client.connect(transport, { signal: controller.signal, timeout: timeoutMs });
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const listed = await client.listTools(cursor ? { cursor } : undefined, {
        signal: controller.signal,
        timeout: timeoutMs,
      });
      tools.push(...(listed.tools as McpToolInfo[]));
      cursor = listed.nextCursor;
      if (!cursor) break;
    }
    return { client, tools };
  } catch (error) {
    await client.close().catch(() => {});
    const why = controller.signal.aborted ? `it did not answer within ${timeoutMs / 1000} s` : messageOf(error);
    const detail = stderrTail.trim()
      ? ` (its stderr ends: ${stderrTail.trim().split("\n").slice(-3).join(" | ")})`
      : "";
    return { error: `${why}${detail}${hint(config)}` };
  } finally {
    clearTimeout(timer);
    closing.removeEventListener("abort", onClosing);
  }
}

function hint(config: McpServerConfig): string {
  return config.transport === "stdio"
    ? `; check that \`${[config.command, ...config.args].join(" ")}\` runs`
    : `; check that ${shownUrl(config.url)} is reachable`;
}

/** A server's URL as messages show it: without user, password and query, where keys tend to sit. */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}${parsed.search ? "?…" : ""}`;
  } catch {
    return "(an invalid URL)";
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

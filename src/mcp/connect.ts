// Connections to MCP servers on @modelcontextprotocol/sdk. Loaded lazily (only when servers
// are configured), so runs without MCP never load the SDK.
//
// When servers start: all of them in parallel as a run is being set up, before the first model
// request, because the model must see their tools in that request. Each gets MCP_CONNECT_TIMEOUT_MS;
// one that fails or is too slow is reported once and left out, and the run goes on without it.
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

/** How long a server gets to start, initialise and list its tools. */
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

/**
 * Starts every server. `env` is what local servers run with (the bash tool's environment,
 * credentials removed), their own `env` entries on top.
 */
export async function connectMcpServers(
  configs: McpServerConfig[],
  options: {
    cwd: string;
    env: Record<string, string>;
    warn(message: string): void;
    /** How pictures in tool results are made fit for the model (tools/image-file.ts). */
    prepareImage: PrepareImage;
    timeoutMs?: number;
  },
): Promise<McpConnections> {
  const clients: Client[] = [];
  const results = await Promise.all(
    configs.map((config) => connectOne(config, options.cwd, options.env, options.timeoutMs ?? MCP_CONNECT_TIMEOUT_MS)),
  );
  const tools: Tool[] = [];
  const servers: McpServerStatus[] = [];
  for (const [index, result] of results.entries()) {
    const name = configs[index].name;
    if ("error" in result) {
      options.warn(`MCP server "${name}" is not available: ${result.error}; going on without its tools`);
      servers.push({ name, ok: false, error: result.error });
      continue;
    }
    clients.push(result.client);
    servers.push({ name, ok: true, tools: result.tools });
    let isReported = false;
    const call = async (tool: string, args: Record<string, unknown>, signal: AbortSignal) => {
      try {
        return (await result.client.callTool({ name: tool, arguments: args }, undefined, {
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
        if (!isReported && !signal.aborted) options.warn(message); // once per server; the model sees every failure
        isReported = true;
        throw new Error(message);
      }
    };
    for (const info of result.tools) tools.push(toHarnessTool(name, info, call, options.prepareImage));
  }
  return {
    tools,
    servers,
    async close() {
      await Promise.allSettled(clients.map((client) => client.close()));
    },
  };
}

async function connectOne(
  config: McpServerConfig,
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
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

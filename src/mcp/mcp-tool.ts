// An MCP server's tool as a harness Tool: the model sees `server__tool` with the server's own
// JSON Schema; arguments are passed through unvalidated (the server validates them and answers
// with an error result the model can read). Results become text, and pictures the result's
// images (made fit for the model as read_file's are, named in the text by their size); audio and
// other binary content, and a picture that cannot be sent, are noted in words by type and size.
import { z } from "zod";
import type { ImagePart } from "../core/messages.ts";
import type { Tool, ToolOutput } from "../core/tool.ts";
import { mcpToolName } from "../settings/tool-names.ts";
import { cutMiddle } from "../shared/helpers.ts";

/** The model-facing name `server__tool`, which Claude Code's `mcp__server__tool` means too (settings/tool-names.ts). */
export { mcpToolName };

/** Most of one MCP result the model gets; the middle of a longer one is cut out. */
export const MAX_MCP_RESULT_BYTES = 30 * 1024;
/** Pictures one result sends at most (each may be megabytes); further ones are noted in words. */
export const MAX_MCP_RESULT_IMAGES = 8;

/** A tool as `tools/list` describes it (the fields harness uses). */
export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; title?: string };
}

/** One content block of a `tools/call` result, loosely typed: servers send more kinds over time. */
export type McpContent = { type: string; [field: string]: unknown };

/** Calls a tool on the server; rejects when the server or the connection fails. */
export type CallMcpTool = (
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<{ content?: McpContent[]; structuredContent?: unknown; isError?: boolean }>;

/** A picture sent as base64 made fit for the model, with the words naming it (`20x20 PNG`), or why it cannot be sent. */
export type PrepareImage = (
  data: string,
  name: string,
) => Promise<{ image: ImagePart; description: string } | { error: string }>;

export function toHarnessTool(
  server: string,
  info: McpToolInfo,
  call: CallMcpTool,
  prepareImage: PrepareImage,
): Tool<Record<string, unknown>> {
  const { $schema: _omit, ...parameters } = info.inputSchema;
  return {
    name: mcpToolName(server, info.name),
    description: info.description || info.annotations?.title || `${info.name} (from the ${server} MCP server)`,
    // readOnlyHint is the server's claim; a server the user chose to run is trusted that far.
    kind: info.annotations?.readOnlyHint ? "read" : "execute",
    input: z.record(z.string(), z.unknown()),
    parameters: { type: "object", ...parameters },
    describe: (input) => `${server}: ${info.name} ${oneLine(JSON.stringify(input))}`,
    // A read-only tool is judged as a read of its `path` argument (the working directory without
    // one), as before effects were declared: the server does the reading, but a read-only claim
    // should not carry it to a credential unasked. The schema is the server's, so this is the one
    // place an argument name is read. Other tools declare nothing and are asked about by kind.
    ...(info.annotations?.readOnlyHint
      ? {
          effects: (input: Record<string, unknown>) => ({ reads: [typeof input.path === "string" ? input.path : "."] }),
        }
      : {}),
    async run(input, context): Promise<ToolOutput> {
      const result = await call(info.name, input, context.signal);
      const { text, images } = await resultParts(result.content ?? [], result.structuredContent, async (data) => {
        const prepared = await prepareImage(data, "the image");
        return "error" in prepared ? `not sent: ${prepared.error}` : prepared;
      });
      return {
        content: cutMiddle(
          text || (result.isError ? "(the tool failed and said nothing)" : "(no output)"),
          MAX_MCP_RESULT_BYTES / 2,
        ),
        isError: result.isError === true,
        ...(images.length > 0 ? { images } : {}),
      };
    },
  };
}

/**
 * Text blocks as they are; pictures (up to MAX_MCP_RESULT_IMAGES) as images, named in the text in
 * their place; everything else as a one-line note the model can reason about.
 */
async function resultParts(
  content: McpContent[],
  structured: unknown,
  prepare: (data: string) => Promise<{ image: ImagePart; description: string } | string>,
): Promise<{ text: string; images: ImagePart[] }> {
  if (content.length === 0 && structured !== undefined)
    return { text: JSON.stringify(structured, null, 2), images: [] };
  const lines: string[] = [];
  const images: ImagePart[] = [];
  for (const block of content) {
    const data = typeof block.data === "string" ? block.data : undefined;
    if (block.type !== "image" || !data) {
      lines.push(blockText(block));
      continue;
    }
    const prepared =
      images.length < MAX_MCP_RESULT_IMAGES
        ? await prepare(data)
        : `not sent: ${MAX_MCP_RESULT_IMAGES} images per result are sent`;
    if (typeof prepared === "string") lines.push(`${blockText(block).slice(0, -1)}, ${prepared}]`);
    else {
      images.push(prepared.image);
      lines.push(`[image: ${prepared.description}]`);
    }
  }
  return { text: lines.join("\n"), images };
}

function blockText(block: McpContent): string {
  const field = (name: string) => (typeof block[name] === "string" ? (block[name] as string) : undefined);
  switch (block.type) {
    case "text":
      return field("text") ?? "";
    case "image":
    case "audio":
      return `[${block.type}: ${field("mimeType") ?? "unknown type"}, ${base64Bytes(field("data"))} bytes]`;
    case "resource_link":
      return `[resource link: ${field("name") ?? ""} <${field("uri") ?? ""}>${field("mimeType") ? ` (${field("mimeType")})` : ""}${field("description") ? ` ${field("description")}` : ""}]`;
    case "resource": {
      const resource = (block.resource ?? {}) as Record<string, unknown>;
      const uri = typeof resource.uri === "string" ? resource.uri : "";
      if (typeof resource.text === "string") return `[resource <${uri}>]\n${resource.text}`;
      const blob = typeof resource.blob === "string" ? resource.blob : undefined;
      return `[resource <${uri}>: ${typeof resource.mimeType === "string" ? resource.mimeType : "binary"}, ${base64Bytes(blob)} bytes]`;
    }
    default:
      return `[${block.type} content, not shown]`;
  }
}

function base64Bytes(data: string | undefined): number {
  if (!data) return 0;
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}

function oneLine(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

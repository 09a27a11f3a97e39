// The lsp tool's queries: the file shown to its server as it is on disk now, one LSP request
// within a bound, and the answer made compact for the model (lsp-answers.ts): paths relative to the
// workspace, line:column from 1, a line of source where the session may read it, a few dozen
// entries at most. A server that fails or does not answer is the model's business here (it asked),
// said in one line.
import { readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import type { ToolContext, ToolOutput } from "../core/tool.ts";
import type { LanguageServer } from "./language-server.ts";
import type { LanguageServers } from "./language-servers.ts";
import { formatDiagnostics, formatHover, formatLocations, formatSymbols, SourceLines } from "./lsp-answers.ts";

/** What the model sends (lsp-tool.ts's schema). */
export interface LspQuery {
  operation: "goToDefinition" | "findReferences" | "hover" | "documentSymbol" | "workspaceSymbol" | "diagnostics";
  path?: string;
  line?: number;
  character?: number;
  symbol?: string;
  query?: string;
}

/** A file larger than this is not sent to a server. */
const MAX_QUERIED_FILE_BYTES = 1024 * 1024;

const failed = (content: string): ToolOutput => ({ content, isError: true, summary: "no answer" });

export async function runLspQuery(
  servers: LanguageServers,
  input: LspQuery,
  context: ToolContext,
): Promise<ToolOutput> {
  const { cwd, signal } = context;
  const deadline = Date.now() + servers.queryWaitMs;
  const lines = new SourceLines(cwd, context.checkAtUse);
  const ask = async (server: LanguageServer, method: string, params: unknown) =>
    server.connection.request(method, params, Math.max(1, deadline - Date.now()), signal);
  const file = input.path === undefined ? undefined : path.resolve(cwd, input.path);
  const opened = file === undefined ? undefined : await openFor(servers, file, context);
  try {
    if (input.operation === "workspaceSymbol") {
      if (!input.query) return failed("workspaceSymbol needs query: the name, or part of it, to look for");
      const asked = opened && "server" in opened ? [opened.server] : servers.running();
      if (asked.length === 0)
        return failed(
          opened && "error" in opened
            ? opened.error
            : "no language server is running yet: give path, a file of the language to search",
        );
      const found = await Promise.all(asked.map((server) => ask(server, "workspace/symbol", { query: input.query })));
      return formatSymbols(
        found.flatMap((answer) => (Array.isArray(answer) ? answer : [])),
        lines,
        "workspace",
      );
    }
    if (!file || !opened) return failed(`${input.operation} needs path: the file to ask about`);
    if ("error" in opened) return failed(opened.error);
    const { server, uri, text } = opened;
    const textDocument = { uri };
    switch (input.operation) {
      case "documentSymbol":
        return formatSymbols((await ask(server, "textDocument/documentSymbol", { textDocument })) ?? [], lines, "file");
      case "diagnostics": {
        const found = await servers.diagnosticsOf(file, text);
        if (!found) return failed(`${opened.name} gave no diagnostics for ${lines.shown(file)} in time`);
        return formatDiagnostics(lines.shown(file), found);
      }
      case "goToDefinition":
      case "findReferences":
      case "hover": {
        const position = positionIn(text, input);
        if (typeof position === "string") return failed(position);
        if (input.operation === "hover")
          return formatHover(await ask(server, "textDocument/hover", { textDocument, position }));
        const answer =
          input.operation === "goToDefinition"
            ? await ask(server, "textDocument/definition", { textDocument, position })
            : await ask(server, "textDocument/references", {
                textDocument,
                position,
                context: { includeDeclaration: true },
              });
        return formatLocations(answer, lines, input.operation === "goToDefinition" ? "definition" : "reference");
      }
      default:
        return failed(`unknown operation ${String(input.operation)}`);
    }
  } catch (error) {
    const name = opened && "name" in opened ? opened.name : "the language server";
    return failed(`${name} gave no answer: ${error instanceof Error ? error.message : String(error)}`);
  }
}

type Opened = { server: LanguageServer; name: string; uri: string; text: string } | { error: string };

/** The server for `file`, started if need be, with the file shown to it as it is now; or why not. */
async function openFor(servers: LanguageServers, file: string, context: ToolContext): Promise<Opened> {
  let real: string;
  try {
    real = realpathSync(file);
    const stat = statSync(real);
    if (!stat.isFile()) return { error: `${file} is not a file` };
    if (stat.size > MAX_QUERIED_FILE_BYTES) return { error: `${file} is over 1 MB: not sent to a language server` };
  } catch {
    return { error: `${file} does not exist` };
  }
  const refused = await context.checkAtUse?.(real, "read");
  if (refused) return { error: refused };
  const found = await servers.serverOf(file);
  if (!found) {
    const problem = servers.problemOf(file);
    return {
      error: problem
        ? `no language server answers for ${path.basename(file)}: ${problem}`
        : `no language server serves ${path.extname(file) || "extensionless"} files here`,
    };
  }
  const text = readFileSync(real, "utf8");
  return {
    server: found.server,
    name: found.name,
    uri: found.server.sync(file, found.languageId, text),
    text,
  };
}

/** The LSP position (0-based line, UTF-16 column) the model means, or what is wrong with what it gave. */
function positionIn(text: string, input: LspQuery): { line: number; character: number } | string {
  if (input.line === undefined) return `${input.operation} needs line (from 1) and character or symbol`;
  const lines = text.split("\n");
  if (input.line > lines.length) return `line ${input.line} is past the end: the file has ${lines.length} lines`;
  const source = lines[input.line - 1];
  if (input.character !== undefined) return { line: input.line - 1, character: input.character - 1 };
  if (input.symbol) {
    const at = new RegExp(`(?<![\\w$])${input.symbol.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w$])`).exec(source);
    const index = at?.index ?? source.indexOf(input.symbol);
    if (index < 0) return `${input.symbol} is not on line ${input.line}: ${source.trim().slice(0, 200)}`;
    return { line: input.line - 1, character: index };
  }
  return { line: input.line - 1, character: Math.max(0, source.search(/\S/)) };
}

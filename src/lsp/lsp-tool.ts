// The lsp tool: the model asks a language server where a name is defined, where it is used, what
// its type is, what a file or the workspace declares, and what is wrong with a file. Read-only: it
// reads the file it names (its effects say so) and shows the server that file's text. Offered only
// where a server can run (lspToolApplies): the tool list carries no tool the model cannot use. The
// queries and their compact answers are in lsp-queries.ts, loaded on the first call.
import { z } from "zod";
import { defineTool } from "../core/tool.ts";
import type { LanguageServerHook } from "./edit-diagnostics-hook.ts";
import type { LspQuery } from "./lsp-queries.ts";

/** The operations, named as Claude Code's LSP tool names them, so a model used to that tool knows them. */
const OPERATIONS = [
  "goToDefinition",
  "findReferences",
  "hover",
  "documentSymbol",
  "workspaceSymbol",
  "diagnostics",
] as const;

/** The tool for a session's servers; `serverNames` (the ones that can run here) go in its description. */
export function lspTool(hook: Pick<LanguageServerHook, "load">, serverNames: readonly string[]) {
  return defineTool({
    name: "lsp",
    description: `Ask the language server (${serverNames.join(", ")}) about code: goToDefinition, findReferences and hover at a position (path, 1-based line, and character or the symbol's name on that line), documentSymbol (what a file declares), workspaceSymbol (find declarations by name: query), diagnostics (a file's errors and warnings now). Answers give paths relative to the workspace with line:column. Prefer it to grep for definitions and references.`,
    kind: "read",
    input: z.object({
      operation: z.enum(OPERATIONS),
      path: z
        .string()
        .optional()
        .describe("The file (needed for all but workspaceSymbol, where it picks the language)"),
      line: z.number().int().min(1).optional().describe("1-based line, for goToDefinition, findReferences and hover"),
      character: z.number().int().min(1).optional().describe("1-based column on that line (or give symbol)"),
      symbol: z.string().optional().describe("The name on that line to ask about, instead of character"),
      query: z.string().optional().describe("workspaceSymbol: the name, or part of it, to look for"),
    }),
    describe: (input) =>
      `lsp ${input.operation}${input.path ? ` ${input.path}${input.line ? `:${input.line}` : ""}` : ""}${input.query ? ` ${input.query}` : ""}`,
    // The file it names (the workspace for a search without one): it is read and shown to the server.
    effects: (input, cwd) => ({ reads: [input.path ?? cwd] }),
    async run(input: LspQuery, context) {
      const [servers, { runLspQuery }] = await Promise.all([hook.load(), import("./lsp-queries.ts")]);
      return runLspQuery(servers, input, context);
    },
  });
}

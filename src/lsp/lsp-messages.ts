// The LSP messages harness sends and reads besides the handshake's flow: what the client can take,
// settings for `workspace/configuration`, and tsserver's diagnostics turned into LSP's.
/** What a server says about a file (LSP `Diagnostic`, the fields harness reads). */
export interface Diagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  /** 1 error, 2 warning, 3 information, 4 hint; absent: the client decides (LSP says: treat as error). */
  severity?: number;
  code?: number | string;
  source?: string;
  message: string;
}

/** tsserver's diagnostics (1-based line and offset, a category) as LSP's (0-based, a severity); suggestions left out. */
export function fromTsserver(body: unknown): Diagnostic[] {
  if (!Array.isArray(body)) return [];
  const severities: Record<string, number> = { error: 1, warning: 2, message: 3 };
  return body.flatMap((item) => {
    const severity = severities[item?.category];
    if (!severity || typeof item.text !== "string" || typeof item.start?.line !== "number") return [];
    const at = (point: { line: number; offset: number }) => ({ line: point.line - 1, character: point.offset - 1 });
    return [
      {
        range: { start: at(item.start), end: at(item.end ?? item.start) },
        severity,
        code: item.code,
        message: item.text,
      },
    ];
  });
}

/** A dotted section (`python.analysis`) of the settings, or null. */
export function sectionOf(settings: Record<string, unknown> | undefined, section: string | undefined): unknown {
  if (!settings) return null;
  if (!section) return settings;
  let value: unknown = settings;
  for (const part of section.split(".")) {
    if (value === null || typeof value !== "object") return null;
    value = (value as Record<string, unknown>)[part];
  }
  return value ?? null;
}

/** What harness can take: diagnostics pushed, documents opened and closed whole, and the lsp tool's queries. */
export const CLIENT_CAPABILITIES = {
  workspace: { configuration: true, workspaceFolders: true, symbol: {} },
  textDocument: {
    synchronization: { dynamicRegistration: false },
    publishDiagnostics: { relatedInformation: false, versionSupport: true },
    hover: { contentFormat: ["plaintext", "markdown"] },
    definition: { linkSupport: false },
    references: {},
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
  },
  window: { workDoneProgress: false },
  general: { positionEncodings: ["utf-16"] },
};

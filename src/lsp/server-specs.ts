// The language servers harness knows, in the shape Claude Code's `.lsp.json` and plugin
// `lspServers` use (https://code.claude.com/docs/en/plugins-reference#lsp-servers): a command, its
// arguments and which file extensions it serves, with their LSP language ids. A declared server is
// the same record, so one carries over unchanged. This file is small and imports nothing: the
// after-edit hook reads it on every edit to tell, without loading the client, whether any server applies.
import path from "node:path";

/** One language server: how to start it and the files it serves. */
export interface LanguageServerSpec {
  /** The record's name (`typescript`, `pyright`, or a declared server's key). */
  name: string;
  command: string;
  args: string[];
  /** `.ts` -> `typescript`: the extension (with its dot) of each file the server serves, and its language id. */
  extensionToLanguage: Record<string, string>;
  env?: Record<string, string>;
  initializationOptions?: unknown;
  /** Answers the server's `workspace/configuration` requests (by section); absent: null. */
  settings?: Record<string, unknown>;
  /** Where it was declared, for messages (`built-in`, or a settings file). */
  source: string;
  /**
   * How harness gets a file's diagnostics: `push` waits for publishDiagnostics (LSP's way, every
   * declared server); `tsserver` asks TypeScript itself through typescript-language-server's
   * `typescript.tsserverRequest` command, since that server publishes nothing when a clean file
   * stays clean, so a push wait could not tell "still clean" from "not yet".
   */
  diagnostics?: "push" | "tsserver";
}

/**
 * Found on PATH or in the workspace's node_modules/.bin. typescript-language-server drives the
 * workspace's own TypeScript when it has one (else the one next to it); pyright-langserver is
 * pyright's LSP entry point. None of them may reach the network on its own (options below).
 */
export const KNOWN_SERVERS: readonly LanguageServerSpec[] = [
  {
    name: "typescript",
    command: "typescript-language-server",
    args: ["--stdio"],
    // No automatic type acquisition: it would fetch @types packages from the network into a cache.
    initializationOptions: { disableAutomaticTypingAcquisition: true },
    diagnostics: "tsserver",
    extensionToLanguage: {
      ".ts": "typescript",
      ".mts": "typescript",
      ".cts": "typescript",
      ".tsx": "typescriptreact",
      ".js": "javascript",
      ".mjs": "javascript",
      ".cjs": "javascript",
      ".jsx": "javascriptreact",
    },
    source: "built-in",
  },
  {
    name: "pyright",
    command: "pyright-langserver",
    args: ["--stdio"],
    extensionToLanguage: { ".py": "python", ".pyi": "python" },
    source: "built-in",
  },
  // vscode-langservers-extracted: VS Code's own JSON, CSS and HTML servers.
  {
    name: "json",
    command: "vscode-json-language-server",
    args: ["--stdio"],
    // A schema named by URL is asked of harness, which answers none, rather than fetched: the
    // server would fetch it from the network itself (its "http"/"https" handlers) otherwise.
    initializationOptions: { handledSchemaProtocols: ["file"], provideFormatter: false },
    extensionToLanguage: { ".json": "json", ".jsonc": "jsonc" },
    source: "built-in",
  },
  {
    name: "css",
    command: "vscode-css-language-server",
    args: ["--stdio"],
    // It asks for its settings by language and validates nothing when the answer is null.
    settings: { css: { validate: true }, scss: { validate: true }, less: { validate: true } },
    extensionToLanguage: { ".css": "css", ".scss": "scss", ".less": "less" },
    source: "built-in",
  },
  {
    name: "html",
    command: "vscode-html-language-server",
    args: ["--stdio"],
    // Its diagnostics are those of the page's <style> and <script> (HTML itself is not validated).
    initializationOptions: { provideFormatter: false },
    settings: { html: { validate: { scripts: true, styles: true } }, css: { validate: true } },
    extensionToLanguage: { ".html": "html", ".htm": "html" },
    source: "built-in",
  },
  {
    name: "yaml",
    command: "yaml-language-server",
    args: ["--stdio"],
    // No JSON Schema Store: it would fetch the store's catalogue and schemas from the network.
    settings: { yaml: { validate: true, schemaStore: { enable: false } } },
    extensionToLanguage: { ".yaml": "yaml", ".yml": "yaml" },
    source: "built-in",
  },
  {
    name: "bash",
    command: "bash-language-server",
    args: ["start"],
    // Its errors and warnings come from ShellCheck when that is on PATH (alone it reports only
    // information); no explainshell (a network service for hovers).
    initializationOptions: { explainshellEndpoint: "" },
    extensionToLanguage: { ".sh": "shellscript", ".bash": "shellscript" },
    source: "built-in",
  },
];

/** The first server (declared ones before the known) that serves `file`, and the file's language id. */
export function serverFor(
  file: string,
  specs: readonly LanguageServerSpec[],
): { spec: LanguageServerSpec; languageId: string } | undefined {
  const extension = path.extname(file).toLowerCase();
  if (!extension) return undefined;
  for (const spec of specs) {
    const languageId = spec.extensionToLanguage[extension];
    if (languageId) return { spec, languageId };
  }
  return undefined;
}

// One running language server: its process, the LSP handshake, the documents harness has shown
// it, and the diagnostics it publishes. What a server does wrong (it hangs, crashes, floods, answers
// nonsense) ends in a rejected promise or an empty answer within a bound, never in a held step.
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { pathToFileURL } from "node:url";
import { JsonRpcConnection } from "./json-rpc.ts";
import { CLIENT_CAPABILITIES, type Diagnostic, fromTsserver, sectionOf } from "./lsp-messages.ts";
import type { LanguageServerSpec } from "./server-specs.ts";

/** A server's stderr kept for the status view: the last this many characters. */
const STDERR_TAIL_CHARS = 2000;
/** The most diagnostics kept for one file: a flooding server's list is cut here. */
const MAX_DIAGNOSTICS_PER_FILE = 500;
/**
 * After a server's first publish for a file, how long it must then stay quiet for the list to
 * count as complete: servers publish in passes (syntax, then types) a few tens of ms apart.
 */
const PUSH_QUIET_MS = 300;
/** Files whose published diagnostics are kept, at most: a server publishing for endless new files is bounded too. */
const MAX_PUBLISHED_FILES = 1000;
/** Files a server is told about, at most; past it the oldest is closed (a bound on what a long session holds). */
const MAX_OPEN_DOCUMENTS = 200;

interface StartOptions {
  spec: LanguageServerSpec;
  /** The program to run (the spec's command as found). */
  program: string;
  root: string;
  env: Record<string, string | undefined>;
  /** The bound on starting: spawn, `initialize` and its answer. */
  startMs: number;
  onExit(reason: string): void;
}

export class LanguageServer {
  private readonly published = new Map<string, { diagnostics: Diagnostic[]; count: number; version?: number }>();
  private readonly listeners = new Set<(uri: string) => void>();
  /** The files shown to the server, with a digest of the text it has (not the text: 200 files of 1 MB). */
  private readonly documents = new Map<string, { version: number; languageId: string; digest: string }>();
  stderrTail = "";
  capabilities: Record<string, unknown> = {};

  private constructor(
    private readonly child: ChildProcess,
    readonly connection: JsonRpcConnection,
    private readonly spec: LanguageServerSpec,
  ) {}

  static async start(options: StartOptions): Promise<LanguageServer> {
    const { spec, root } = options;
    const child = spawn(options.program, spec.args, {
      cwd: root,
      env: { ...options.env, ...spec.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let exitReason: string | undefined;
    const connection: JsonRpcConnection = new JsonRpcConnection(
      child.stdout,
      child.stdin,
      (method: string, params: unknown): unknown => server.answer(method, params),
      (reason) => {
        exitReason ??= reason;
        // A check waiting for a publish ends now, not at its bound.
        for (const listener of server.listeners) listener("");
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      },
    );
    const server: LanguageServer = new LanguageServer(child, connection, spec);
    child.stderr?.on("data", (chunk: Buffer) => {
      server.stderrTail = (server.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
    child.on("error", (error) => connection.close(`could not start ${options.program}: ${error.message}`));
    child.on("exit", (code, signal) => {
      const reason = exitReason ?? `the server exited (${signal ?? `code ${code}`})`;
      connection.close(reason);
      options.onExit(reason);
    });
    connection.onNotification((method, params) => server.notified(method, params));
    const rootUri = pathToFileURL(root).href;
    try {
      const result = (await connection.request(
        "initialize",
        {
          processId: process.pid,
          clientInfo: { name: "harness" },
          rootUri,
          rootPath: root,
          workspaceFolders: [{ uri: rootUri, name: root.split("/").pop() || root }],
          initializationOptions: spec.initializationOptions,
          capabilities: CLIENT_CAPABILITIES,
        },
        options.startMs,
      )) as { capabilities?: Record<string, unknown> } | null;
      server.capabilities = result?.capabilities ?? {};
      connection.notify("initialized", {});
      if (spec.settings) connection.notify("workspace/didChangeConfiguration", { settings: spec.settings });
    } catch (error) {
      server.kill();
      throw error;
    }
    return server;
  }

  /** Shows the server `file` as `text`: opens it, or sends the whole new text as a change. */
  private show(uri: string, languageId: string, text: string): number {
    const open = this.documents.get(uri);
    if (open) {
      open.version += 1;
      open.digest = digestOf(text);
      this.connection.notify("textDocument/didChange", {
        textDocument: { uri, version: open.version },
        contentChanges: [{ text }],
      });
      return open.version;
    }
    if (this.documents.size >= MAX_OPEN_DOCUMENTS) {
      const oldest = this.documents.keys().next().value as string;
      this.connection.notify("textDocument/didClose", { textDocument: { uri: oldest } });
      this.documents.delete(oldest);
    }
    this.documents.set(uri, { version: 1, languageId, digest: digestOf(text) });
    this.connection.notify("textDocument/didOpen", { textDocument: { uri, languageId, version: 1, text } });
    return 1;
  }

  /** The diagnostics of `file` as `text`, within `boundMs`; undefined when they did not come in time. */
  async check(file: string, languageId: string, text: string, boundMs: number): Promise<Diagnostic[] | undefined> {
    if (this.spec.diagnostics !== "tsserver")
      return this.pushedDiagnostics(file, languageId, text, boundMs, PUSH_QUIET_MS);
    const deadline = Date.now() + boundMs;
    this.show(pathToFileURL(file).href, languageId, text);
    const found: Diagnostic[] = [];
    try {
      for (const command of ["syntacticDiagnosticsSync", "semanticDiagnosticsSync"]) {
        const answer = (await this.connection.request(
          "workspace/executeCommand",
          { command: "typescript.tsserverRequest", arguments: [command, { file }] },
          Math.max(1, deadline - Date.now()),
        )) as { body?: unknown } | null;
        found.push(...fromTsserver(answer?.body));
      }
    } catch {
      return undefined;
    }
    return found.slice(0, MAX_DIAGNOSTICS_PER_FILE);
  }

  /**
   * The diagnostics of `file` as `text`, pushed by the server, waiting at most `boundMs`; undefined when none came in time.
   *
   * Servers push diagnostics (publishDiagnostics) when they have them, in parts and with no "done":
   * typescript-language-server publishes after each of its syntax, semantic and suggestion passes,
   * and not at all when a pass finds nothing again. So the file is closed and opened again (a
   * fresh document always gets a first publish), and after the first publish harness waits until
   * the server has been quiet for `quietMs` (its later passes), or the bound.
   */
  private pushedDiagnostics(
    file: string,
    languageId: string,
    text: string,
    boundMs: number,
    quietMs: number,
  ): Promise<Diagnostic[] | undefined> {
    const uri = pathToFileURL(file).href;
    return new Promise((resolve) => {
      const before = this.published.get(uri)?.count ?? 0;
      let sent = Number.POSITIVE_INFINITY;
      let quiet: NodeJS.Timeout | undefined;
      const finish = (value: Diagnostic[] | undefined) => {
        clearTimeout(bound);
        clearTimeout(quiet);
        this.listeners.delete(listener);
        resolve(value);
      };
      const listener = (published: string) => {
        if (this.connection.isClosed) return finish(undefined);
        if (published !== uri) return;
        const version = this.published.get(uri)?.version;
        if (version !== undefined && version < sent) return;
        // A server that says which version it checked (pyright) has answered for this text.
        if (version !== undefined) return finish(this.published.get(uri)?.diagnostics);
        clearTimeout(quiet);
        quiet = setTimeout(() => finish(this.published.get(uri)?.diagnostics), quietMs);
      };
      const bound = setTimeout(() => {
        const latest = this.published.get(uri);
        // Some came, still arriving at the bound: the latest is what there is.
        finish(latest && latest.count > before ? latest.diagnostics : undefined);
      }, boundMs);
      this.listeners.add(listener);
      if (this.connection.isClosed) return finish(undefined);
      sent = this.show(uri, languageId, text);
    });
  }

  /** Makes sure the server has `file` open as `text` (for a query about it: a command may have changed it since). */
  sync(file: string, languageId: string, text: string): string {
    const uri = pathToFileURL(file).href;
    if (this.documents.get(uri)?.digest !== digestOf(text)) this.show(uri, languageId, text);
    return uri;
  }

  /** The last diagnostics published for each file, by file URI. */
  get diagnostics(): ReadonlyMap<string, { diagnostics: Diagnostic[] }> {
    return this.published;
  }

  get isRunning(): boolean {
    return !this.connection.isClosed;
  }

  /** `shutdown`, `exit`, then a kill if it has not gone within `boundMs`. */
  async stop(boundMs: number): Promise<void> {
    if (this.connection.isClosed) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    try {
      await this.connection.request("shutdown", null, boundMs);
      this.connection.notify("exit", null);
    } catch {
      // It did not answer: killed below.
    }
    const timer = setTimeout(() => this.kill(), boundMs);
    await exited;
    clearTimeout(timer);
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }

  private notified(method: string, params: unknown): void {
    if (method !== "textDocument/publishDiagnostics") return;
    const { uri, diagnostics } = (params ?? {}) as { uri?: unknown; diagnostics?: unknown };
    if (typeof uri !== "string" || !Array.isArray(diagnostics)) return;
    const kept = diagnostics
      .filter((d): d is Diagnostic => typeof d?.message === "string" && typeof d?.range?.start?.line === "number")
      .slice(0, MAX_DIAGNOSTICS_PER_FILE);
    const count = (this.published.get(uri)?.count ?? 0) + 1;
    const version =
      typeof (params as { version?: unknown }).version === "number"
        ? (params as { version: number }).version
        : undefined;
    if (!this.published.has(uri) && this.published.size >= MAX_PUBLISHED_FILES)
      this.published.delete(this.published.keys().next().value as string);
    this.published.set(uri, { diagnostics: kept, count, version });
    for (const listener of this.listeners) listener(uri);
  }

  /** The server's requests to the client: configuration from the spec, the rest acknowledged. */
  private answer(method: string, params: unknown): unknown {
    switch (method) {
      case "workspace/configuration": {
        const items = ((params as { items?: Array<{ section?: string }> })?.items ?? []).slice(0, 100);
        return items.map((item) => sectionOf(this.spec.settings, item.section));
      }
      case "workspace/workspaceFolders":
      case "client/registerCapability":
      case "client/unregisterCapability":
      case "window/workDoneProgress/create":
      case "window/showMessageRequest":
      case "workspace/diagnostic/refresh":
      case "workspace/semanticTokens/refresh":
      case "workspace/inlayHint/refresh":
        return null;
      default:
        throw new Error(`harness does not handle ${method}`);
    }
  }
}

function digestOf(text: string): string {
  return createHash("sha1").update(text).digest("base64");
}

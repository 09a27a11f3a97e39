// The sections of a settings.json, each once: its schema as read, its shape for editors where
// that differs, and what it would run or widen once a project's folder is trusted. The reader
// (settings-file.ts), the JSON Schema for editors and the trust question all come from this
// table, so a new key that runs code is one entry here, and the trust question lists it.
import { z } from "zod";
import { hookSectionSchema, readHookSection } from "./hook-section.ts";

/** One thing a file would run or widen, for the trust question. */
export interface WouldRun {
  kind: "hook" | "allowRule";
  text: string;
}

interface Section<Schema extends z.ZodType> {
  schema: Schema;
  /** The shape editors check when reading is more tolerant than the shape (hooks). */
  editorSchema?: z.ZodType;
  /** What the section runs or widens; absent: it only narrows or configures. */
  wouldRun?(value: z.output<Schema>, file: string): WouldRun[];
}

const section = <Schema extends z.ZodType>(entry: Section<Schema>) => entry;

const ruleList = z.array(z.string());

export const SECTIONS = {
  $schema: section({ schema: z.string() }),
  // First, so the trust question lists a file's hooks before its allow rules.
  // Read by its own tolerant policy (hook-section.ts): a broken hook is reported and skipped.
  hooks: section({
    schema: z.unknown(),
    editorSchema: hookSectionSchema,
    wouldRun: (hooks, file) =>
      readHookSection(hooks, file).entries.map(
        (hook): WouldRun => ({
          kind: "hook",
          text: `hook ${hook.event}${hook.matcher ? ` ${hook.matcher}` : ""}: ${hook.command}`,
        }),
      ),
  }),
  permissions: section({
    schema: z.strictObject({
      allow: ruleList.optional().describe("rules that run without asking (a project's: in a trusted folder only)"),
      deny: ruleList.optional().describe("rules that never run"),
      ask: ruleList
        .optional()
        .describe(
          "rules that always ask, even under an allow rule, --approve edits or --yes; headless, refused (Claude Code's permissions.ask)",
        ),
      additionalDirectories: z
        .array(z.string())
        .optional()
        .describe("more folders the file tools use as freely as the workspace (a project's: in a trusted folder only)"),
    }),
    wouldRun: (permissions) => [
      ...(permissions.allow ?? []).map((rule): WouldRun => ({ kind: "allowRule", text: `allow ${rule}` })),
      ...(permissions.additionalDirectories ?? []).map(
        (folder): WouldRun => ({ kind: "allowRule", text: `additional directory ${folder}` }),
      ),
    ],
  }),
  permissionMode: section({
    schema: z
      .enum(["ask", "edits", "plan", "all"])
      .describe(
        "the approval mode when --approve does not choose one (plan: nothing changes, Claude Code's name); a project's file may choose only plan",
      ),
  }),
  sandbox: section({
    schema: z.strictObject({
      enabled: z.boolean().optional().describe("false turns the sandbox off (the user's file only)"),
      network: z
        .union([z.boolean(), z.enum(["off", "on"]), z.array(z.string())])
        .optional()
        .describe(
          'what commands reach: "off" (the default), "on" (the user\'s file only), or a list of domains, *.domains, addresses and localhost:port grants (a project\'s list narrows; it widens only in a trusted folder); docs/network.md',
        ),
      deniedDomains: z
        .array(z.string())
        .optional()
        .describe("domains commands never reach, whoever allows them (Claude Code's sandbox.network.deniedDomains)"),
    }),
  }),
  env: section({
    schema: z.strictObject({
      passthrough: z
        .array(z.string())
        .optional()
        .describe(
          "variables kept in the environment of commands, hooks and MCP servers although they look like credentials",
        ),
      strip: z.array(z.string()).optional().describe("more variables removed from it"),
    }),
  }),
  // Claude Code's `.lsp.json` / plugin `lspServers` shape (https://code.claude.com/docs/en/plugins-reference#lsp-servers),
  // so a Claude Code declaration carries over unchanged; src/lsp/declared-servers.ts says which of its fields harness uses.
  lspServers: section({
    schema: z.record(
      z.string(),
      z.looseObject({
        command: z.string().min(1).describe("the server's program (on PATH, or a path)"),
        args: z.array(z.string()).optional(),
        extensionToLanguage: z
          .record(z.string(), z.string())
          .describe('the files it serves: `{ ".go": "go" }`, extension to LSP language id'),
        env: z.record(z.string(), z.string()).optional(),
        initializationOptions: z.unknown().optional(),
        settings: z.record(z.string(), z.unknown()).optional().describe("answers to its workspace/configuration"),
      }),
    ),
    wouldRun: (servers) =>
      Object.entries(servers).map(
        ([name, server]): WouldRun => ({
          kind: "hook",
          text: `language server ${name}: ${[server.command, ...(server.args ?? [])].join(" ")}`,
        }),
      ),
  }),
  trustedFolders: section({
    schema: z
      .array(z.string())
      .describe("folders whose project settings apply without asking (`~/src/app`, `~/work/**`); the user's file only"),
  }),
};

type Sections = typeof SECTIONS;
type ReadShape = { [Key in keyof Sections]: z.ZodOptional<Sections[Key]["schema"]> };

/** The shape a file is read with: every section optional. */
export function readShape(): ReadShape {
  return Object.fromEntries(
    Object.entries(SECTIONS).map(([key, entry]) => [key, entry.schema.optional()]),
  ) as ReadShape;
}

/** The shape editors check (docs/settings.schema.json). */
export function editorShape(): Record<string, z.ZodType> {
  return Object.fromEntries(
    Object.entries(SECTIONS).map(([key, entry]): [string, z.ZodType] => [
      key,
      ("editorSchema" in entry && entry.editorSchema ? entry.editorSchema : entry.schema).optional(),
    ]),
  );
}

/** What the parsed sections of one file would run or widen, section by section. */
export function wouldRunOfSections(parsed: Record<string, unknown>, file: string): WouldRun[] {
  return Object.entries(SECTIONS).flatMap(([key, entry]) => {
    const value = parsed[key];
    if (value === undefined || !("wouldRun" in entry)) return [];
    return (entry.wouldRun as (value: unknown, file: string) => WouldRun[])(value, file);
  });
}

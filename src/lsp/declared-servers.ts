// Language servers declared in settings.json's `lspServers` (the user's, and a trusted project's),
// in Claude Code's `.lsp.json` shape. A declared server comes before the known ones, so one
// declared for `.ts` replaces typescript-language-server. Fields of Claude Code's shape harness does
// not use are said once; an untrusted folder's declarations are not run, and that is said once.
import { readSettingsFile, SettingsError, type SettingsSource } from "../settings/settings-file.ts";
import type { LanguageServerSpec } from "./server-specs.ts";

/** The fields of a declaration harness takes; Claude Code's others (transport, timeouts, restarts) are reported. */
const TAKEN = new Set(["command", "args", "extensionToLanguage", "env", "initializationOptions", "settings"]);

export function declaredServers(
  sources: { user: SettingsSource[]; project: SettingsSource[] },
  isProjectTrusted: boolean,
  warn: (message: string) => void,
): LanguageServerSpec[] {
  const specs: LanguageServerSpec[] = [];
  for (const source of [...sources.user, ...sources.project]) {
    let servers: Record<string, Record<string, unknown>> | undefined;
    try {
      servers = readSettingsFile(source)?.sections.lspServers;
    } catch (error) {
      // The permission setup read the same file first and reported it.
      if (!(error instanceof SettingsError)) throw error;
      continue;
    }
    if (!servers || Object.keys(servers).length === 0) continue;
    if (!source.isUser && !isProjectTrusted) {
      warn(`${source.path}: lspServers ${Object.keys(servers).join(", ")} not started: this folder is not trusted`);
      continue;
    }
    for (const [name, server] of Object.entries(servers)) {
      const unused = Object.keys(server).filter((key) => !TAKEN.has(key));
      if (unused.length > 0) warn(`${source.path}: lspServers.${name}: harness does not use ${unused.join(", ")}`);
      specs.push({
        name,
        command: server.command as string,
        args: (server.args as string[] | undefined) ?? [],
        extensionToLanguage: server.extensionToLanguage as Record<string, string>,
        env: server.env as Record<string, string> | undefined,
        initializationOptions: server.initializationOptions,
        settings: server.settings as Record<string, unknown> | undefined,
        source: source.path,
      });
    }
  }
  // A later file's server of the same name replaces an earlier one (the project's the user's).
  return specs.filter((spec, index) => !specs.slice(index + 1).some((later) => later.name === spec.name));
}

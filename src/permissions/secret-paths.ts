// Where credentials live on disk. The sandbox hides these from commands and the path policy
// keeps file tools out of them: policy as data, one list for both.
import path from "node:path";

/** Folders and files under the home folder that hold keys, tokens or logins. */
const HOME_SECRETS = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".config/gcloud",
  ".azure",
  ".kube",
  ".docker",
  ".config/gh",
  ".password-store",
  ".netrc",
  ".git-credentials",
  ".pgpass",
  // Other agents' logins and settings: their tokens are as good as an API key, and their MCP
  // server entries carry tokens in `env` and headers. Each from the agent's own documentation:
  // Claude Code: ~/.claude.json (MCP servers of user and local scope, API-key logins,
  // code.claude.com/docs/en/mcp) and ~/.claude/.credentials.json (the login on Linux).
  ".claude.json",
  ".claude/.credentials.json",
  // Codex: ~/.codex holds auth.json (the login) and config.toml (MCP servers' env, bearer tokens),
  // and the transcripts; harness reads nothing there, so the whole folder.
  ".codex",
  // Gemini CLI: ~/.gemini holds oauth_creds.json, mcp-oauth-tokens.json, .env (the API key) and
  // settings.json (MCP servers' env); harness reads nothing there, so the whole folder.
  ".gemini",
  // opencode: the login in ~/.local/share/opencode/auth.json (and its MCP logins beside it);
  // API keys may sit in ~/.config/opencode/opencode.json.
  ".local/share/opencode",
  ".config/opencode",
  // pi: ~/.pi/agent/auth.json (API keys and OAuth tokens), models.json (custom providers' keys).
  ".pi/agent/auth.json",
  ".pi/agent/models.json",
  // GitHub Copilot: the editors' ~/.config/github-copilot (hosts.json, apps.json) and the CLI's
  // ~/.copilot (config.json keeps the login where no keychain is; mcp-config.json).
  ".config/github-copilot",
  ".copilot",
  // aider: API keys in ~/.aider.conf.yml and in ~/.env (aider.chat/docs/config/api-keys.html),
  // and ~/.aider (the OpenRouter login it saves).
  ".aider.conf.yml",
  ".env",
  ".aider",
  // Amp: ~/.local/share/amp/secrets.json; crush: its provider logins in ~/.local/share/crush;
  // goose: ~/.config/goose/secrets.yaml where no keyring is (block.github.io/goose config files).
  ".local/share/amp",
  ".local/share/crush",
  ".config/goose/secrets.yaml",
  // Package registries' publish tokens.
  ".npmrc",
  ".yarnrc.yml",
  ".pypirc",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".gem/credentials",
  ".m2/settings.xml",
  ".gradle/gradle.properties",
  ".nuget/NuGet/NuGet.Config",
  ".config/hub",
  ".terraform.d/credentials.tfrc.json",
  ".vault-token",
];

/**
 * The same logins where an environment variable moves them (the tools read these variables, so
 * the files are there instead): the agent's own folder variable, and the XDG base folders.
 * Each maps a variable to the secret entries inside the folder it names ("" is the folder itself).
 */
const MOVED_SECRETS: Record<string, string[]> = {
  CLAUDE_CONFIG_DIR: [".credentials.json", ".claude.json"],
  CODEX_HOME: [""],
  COPILOT_HOME: [""],
  GH_CONFIG_DIR: [""],
  PI_CODING_AGENT_DIR: ["auth.json", "models.json"],
  XDG_CONFIG_HOME: ["gcloud", "gh", "hub", "opencode", "github-copilot", "goose/secrets.yaml"],
  XDG_DATA_HOME: ["opencode", "amp", "crush"],
};

/**
 * The secret paths for this user: the list above under `home`, the same where an environment
 * variable moves them, and harness's own state folder (sessions, settings).
 */
export function secretPaths(home: string, harnessHome: string, env: Record<string, string | undefined> = {}): string[] {
  const moved = Object.entries(MOVED_SECRETS).flatMap(([name, entries]) => {
    const folder = env[name];
    return folder && path.isAbsolute(folder) ? entries.map((entry) => path.join(folder, entry)) : [];
  });
  return [...new Set([...HOME_SECRETS.map((name) => path.join(home, name)), ...moved, harnessHome])];
}

/**
 * Kernel views that file tools never read: /proc holds every process's environment (the API
 * keys among them) and memory, /sys the kernel's state. Commands still can, inside the sandbox,
 * where the environment is already scrubbed.
 */
export const SYSTEM_PATHS = ["/proc", "/sys"];

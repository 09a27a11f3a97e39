// The environment the bash tool's commands get: the user's, minus credentials and the
// addresses of host services that act with the user's authority (agents, buses, daemons).
import { isCredentialName, redactText } from "../shared/redact.ts";

/** Which variables to keep despite their looks, and which more to remove; names or `PREFIX_*` globs. */
export interface EnvFilter {
  passthrough: string[];
  strip: string[];
}

/**
 * A copy of `env` without credentials: variables whose name looks like one (`*_API_KEY`,
 * `*TOKEN*`, `AWS_*`, ...; see isCredentialName) or names a host socket (isSocketName), whose
 * value looks like a key (`sk-...`), or that `strip` names. `passthrough` keeps a variable
 * anyway (and wins over `strip`).
 */
export function filterCommandEnv(env: Record<string, string | undefined>, filter: EnvFilter): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const isPassedThrough = filter.passthrough.some((pattern) => nameMatches(pattern, name));
    const isSecret =
      isCredentialName(name) ||
      isSocketName(name) ||
      redactText(value) !== value ||
      filter.strip.some((pattern) => nameMatches(pattern, name));
    if (isPassedThrough || !isSecret) kept[name] = value;
  }
  return kept;
}

/** Variables that point at a host service's socket: an ssh or gpg agent, D-Bus, docker, tmux, an editor's IPC. */
const SOCKET_VARIABLES = new Set([
  "DBUS_SESSION_BUS_ADDRESS",
  "DBUS_SYSTEM_BUS_ADDRESS",
  "DOCKER_HOST",
  "CONTAINER_HOST",
  "GPG_AGENT_INFO",
  "XDG_RUNTIME_DIR",
  "WAYLAND_DISPLAY",
  "TMUX",
  "KITTY_LISTEN_ON",
]);

/**
 * Whether a variable points commands at a host socket (`SSH_AUTH_SOCK`, `DOCKER_HOST`,
 * `VSCODE_IPC_HOOK_CLI`). The sandbox masks the sockets themselves; dropping the variables
 * keeps commands from trying, and matters where no sandbox runs.
 */
export function isSocketName(name: string): boolean {
  const upper = name.toUpperCase();
  return SOCKET_VARIABLES.has(upper) || /_SOCK$|_SOCKET$|_IPC_HOOK/.test(upper);
}

function nameMatches(pattern: string, name: string): boolean {
  return pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

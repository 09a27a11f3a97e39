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
  // Other agents' logins: their tokens are as good as an API key.
  ".claude/.credentials.json",
  ".codex/auth.json",
  ".gemini/oauth_creds.json",
  ".config/github-copilot",
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

/** The secret paths for this user: the list above under `home`, and harness's own state folder (sessions, settings). */
export function secretPaths(home: string, harnessHome: string): string[] {
  return [...HOME_SECRETS.map((name) => path.join(home, name)), harnessHome];
}

/**
 * Kernel views that file tools never read: /proc holds every process's environment (the API
 * keys among them) and memory, /sys the kernel's state. Commands still can, inside the sandbox,
 * where the environment is already scrubbed.
 */
export const SYSTEM_PATHS = ["/proc", "/sys"];

// The prompt files (skills, named agents, custom commands) live in optional folders: most
// projects have none of them, so a missing folder is the usual case, not an error.
import { readdirSync } from "node:fs";

/** The names in `folder`, sorted; none when it is missing or unreadable. */
export function namesIn(folder: string): string[] {
  try {
    return readdirSync(folder).sort();
  } catch {
    return [];
  }
}

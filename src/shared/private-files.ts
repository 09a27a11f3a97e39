// Harness's own state ($HARNESS_HOME: sessions, snapshots, trust records, caches, a worker's
// working copies) is the user's alone, whatever the umask harness was started with. Under
// `umask 000` a folder made with mkdir's default mode is writable by every local user, who could
// then plant a settings.json hook or a session that runs as this user. A mode given to mkdir or
// open only loses bits to the umask, never gains them, so 0700 and 0600 hold under any umask.
import { mkdirSync } from "node:fs";
import { mkdir } from "node:fs/promises";

/** Folders of harness's state: only their owner may list, enter or change them. */
export const PRIVATE_FOLDER_MODE = 0o700;
/** Files of harness's state: only their owner may read or write them. */
export const PRIVATE_FILE_MODE = 0o600;

/** Makes `folder` and every missing parent private (a folder that exists already is left as it is). */
export function makePrivateFolder(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
}

/** makePrivateFolder, not blocking. */
export async function makePrivateFolderAsync(folder: string): Promise<void> {
  await mkdir(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
}

// Where sign-ins (`harness login chatgpt|copilot`) keep their tokens: `$HARNESS_HOME/credentials.json`,
// one file, private to the user (0600 in a 0700 folder), written whole (a temporary file renamed
// into place) under a lock file, so two harness processes refreshing at once never lose a rotated
// refresh token: the second one takes the lock, reads the file again and finds the first one's
// fresh token there.
//
// *Decision*: a file, not the OS keyring. Node has no keyring of its own; reaching one means a
// native addon (an install step that fails on many machines) or a helper program per OS
// (`secret-tool` needs a running Secret Service, which servers, containers and SSH sessions lack),
// so harness would need the file anyway. $HARNESS_HOME is already hidden from every sandboxed
// command and from the file tools (permissions/secret-paths.ts), which a keyring would not add to.
// docs/sign-in.md says so.
import { closeSync, lstatSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { sleep } from "../../shared/helpers.ts";
import { makePrivateFolder } from "../../shared/private-files.ts";
import { writeWhole } from "../../shared/write-whole.ts";

/** A ChatGPT sign-in (OpenAI's OAuth, as Codex CLI makes it). Times are ms since the epoch. */
export interface ChatGptCredential {
  kind: "chatgpt";
  accessToken: string;
  refreshToken: string;
  idToken: string;
  /** The `chatgpt_account_id` claim of the id token: every backend request names it. */
  accountId: string;
  email?: string;
  plan?: string;
  expiresAt: number;
}

/** A GitHub Copilot sign-in: GitHub's OAuth token, and the short-lived Copilot token made from it. */
export interface CopilotCredential {
  kind: "copilot";
  githubToken: string;
  login?: string;
  copilotToken?: string;
  copilotExpiresAt?: number;
  sku?: string;
}

export type Credential = ChatGptCredential | CopilotCredential;

/** The file's whole content. */
interface CredentialFile {
  version: 1;
  signIns: Partial<Record<string, Credential>>;
}

/** A sign-in that cannot be used: one line, naming the command that fixes it. */
export class SignInError extends Error {
  override name = "SignInError";
}

export function credentialFile(home: string): string {
  return join(home, "credentials.json");
}

/**
 * The stored sign-ins. A file another user owns, or that others may read or write, is refused
 * (its tokens may be known, or be someone else's): the error says how to fix it.
 */
export function readCredentials(home: string): CredentialFile {
  const file = credentialFile(home);
  let info;
  try {
    info = lstatSync(file);
  } catch {
    return { version: 1, signIns: {} };
  }
  const uid = process.geteuid?.();
  if (!info.isFile()) throw new SignInError(`${file} is not a regular file: remove it and run harness login again`);
  if (uid !== undefined && info.uid !== uid)
    throw new SignInError(`${file} belongs to another user (uid ${info.uid}): remove it and run harness login again`);
  if ((info.mode & 0o077) !== 0)
    throw new SignInError(
      `${file} may be read by other users (mode ${(info.mode & 0o777).toString(8)}): run chmod 600 ${file}, or harness logout and log in again`,
    );
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as CredentialFile;
    if (parsed?.version !== 1 || typeof parsed.signIns !== "object" || parsed.signIns === null)
      throw new Error("shape");
    return parsed;
  } catch {
    throw new SignInError(`${file} is damaged: run harness logout, then harness login again`);
  }
}

/** One provider's sign-in, or undefined. */
export function readCredential(home: string, name: string): Credential | undefined {
  return readCredentials(home).signIns[name];
}

/** Stores (or, with undefined, removes) one provider's sign-in; the caller holds the lock. */
export function writeCredential(home: string, name: string, credential: Credential | undefined): void {
  makePrivateFolder(home);
  const current = readCredentials(home);
  if (credential) current.signIns[name] = credential;
  else delete current.signIns[name];
  writeWhole(credentialFile(home), `${JSON.stringify(current, null, 2)}\n`, 0o600);
}

/** A lock older than this was left by a process that died holding it. */
const STALE_LOCK_MS = 60_000;
/** The longest a process waits for another's refresh (a refresh is one HTTP request, bounded far below). */
const LOCK_WAIT_MS = 90_000;

/**
 * Runs `work` holding `credentials.json.lock` (made with O_EXCL, so one process at a time). A
 * lock whose holder is gone (no such process, or older than STALE_LOCK_MS) is taken over.
 */
export async function withCredentialLock<T>(home: string, work: () => Promise<T>): Promise<T> {
  makePrivateFolder(home);
  const lock = `${credentialFile(home)}.lock`;
  const started = Date.now();
  for (;;) {
    try {
      const fd = openSync(lock, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (isStale(lock)) {
        rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() - started > LOCK_WAIT_MS)
        throw new SignInError(`another harness holds ${lock}: wait for it, or remove the file if none is running`);
      await sleep(25);
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { force: true });
  }
}

function isStale(lock: string): boolean {
  try {
    if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) return true;
    const pid = Number(readFileSync(lock, "utf8"));
    if (!Number.isInteger(pid) || pid <= 0) return false;
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

// `--queue redis://host:port/name`: where the BullMQ queue lives, and the timings its workers
// use. BullMQ itself is imported lazily, only by the queue modes.
import { parsePositiveInteger } from "../../shared/helpers.ts";
import { readRegularFile } from "../../shared/read-regular-file.ts";

/** Queue name when the URL has no path. */
const DEFAULT_QUEUE_NAME = "harness";
/**
 * BullMQ's lock on a job a worker runs; the worker renews it every half of this while alive. A
 * stall shorter than this reruns nothing even by BullMQ's own check. A dead worker is noticed much
 * sooner, by its heartbeat standing still (dead-workers.ts: about 6 s); the lock is the backstop,
 * for a worker whose heartbeat cannot say (an older one). HARNESS_QUEUE_LOCK_MS changes it.
 */
const DEFAULT_LOCK_MS = 5 * 60_000;
/** The stalled-job check (the lock's backstop) runs every this share of the lock. */
const STALLED_SHARE = 0.1;
/** How long the queue commands wait for Redis to answer at all before saying it is unreachable. */
export const REDIS_CONNECT_TIMEOUT_MS = 10_000;

/** A parsed `--queue` URL; `display` has no password. */
export interface QueueTarget {
  name: string;
  connection: {
    host: string;
    port: number;
    username?: string;
    password?: string;
    tls?: object;
    maxRetriesPerRequest: null;
  };
  display: string;
  /** The key jobs and results are signed with (queue-signature.ts), shared by the batch and its workers. */
  key: Buffer;
}

/** A `--queue` value that cannot be used; the message says what form it takes. */
export class QueueUrlError extends Error {
  override name = "QueueUrlError";
}

/** Where the Redis password comes from: never argv, where `ps` shows it to every user of the machine. */
interface QueueSecretSources {
  env: NodeJS.ProcessEnv;
  /** `--queue-password-file <file>`: the password is the file's first line. */
  passwordFile?: string;
  /** `--queue-key-file <file>`: the signing key is the file's first line. */
  keyFile?: string;
}

/** A signing key shorter than this is refused: it would be guessed. */
const MIN_KEY_CHARS = 16;

/** A secret file larger than this is not a secret we read. */
const MAX_SECRET_FILE_BYTES = 4096;

/**
 * A secret's text from `--<flag> <file>` (its first line) or else the variable, or undefined.
 * A file that cannot be read is a QueueUrlError naming it.
 */
function readQueueSecret(file: string | undefined, flag: string, variable: string | undefined): string | undefined {
  if (file === undefined) return variable || undefined;
  const head = readRegularFile(file, MAX_SECRET_FILE_BYTES);
  if (!head || head.size > MAX_SECRET_FILE_BYTES)
    throw new QueueUrlError(`${flag} ${file}: not a readable regular file of at most ${MAX_SECRET_FILE_BYTES} bytes`);
  const line = head.bytes.toString("utf8").split(/\r?\n/)[0];
  if (!line) throw new QueueUrlError(`${flag} ${file}: its first line is empty`);
  return line;
}

/**
 * The queue a `--queue` URL names. A password in the URL is refused: the URL is an argument, and
 * every user of the machine reads arguments (`ps`, /proc/<pid>/cmdline); it comes from
 * HARNESS_QUEUE_PASSWORD or `--queue-password-file` instead (a user name may stay in the URL).
 */
export function parseQueueUrl(value: string, secrets: QueueSecretSources = { env: {} }): QueueTarget {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new QueueUrlError(`--queue takes redis://host:port/name, not "${value}"`);
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:")
    throw new QueueUrlError(`--queue takes redis://host:port/name (or rediss:// for TLS), not "${value}"`);
  const name = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, "")) || DEFAULT_QUEUE_NAME;
  if (!/^[A-Za-z0-9._-]+$/.test(name))
    throw new QueueUrlError(`queue name "${name}": use letters, digits, '.', '_' and '-' only`);
  if (url.password)
    throw new QueueUrlError(
      "--queue: a password in the URL is visible to every user of this machine (ps); give it in HARNESS_QUEUE_PASSWORD or --queue-password-file <file> instead",
    );
  const password = readQueueSecret(secrets.passwordFile, "--queue-password-file", secrets.env.HARNESS_QUEUE_PASSWORD);
  const key = readQueueSecret(secrets.keyFile, "--queue-key-file", secrets.env.HARNESS_QUEUE_KEY);
  if (!key || key.length < MIN_KEY_CHARS)
    throw new QueueUrlError(
      `--queue needs the key its batch and workers sign jobs and results with (at least ${MIN_KEY_CHARS} characters, the same on every one; e.g. \`openssl rand -hex 32\`): give it in HARNESS_QUEUE_KEY or --queue-key-file <file>${key ? ` (the one given has ${key.length})` : ""}`,
    );
  const port = url.port ? Number(url.port) : 6379;
  const host = url.hostname.replace(/^\[|\]$/g, "") || "127.0.0.1";
  return {
    name,
    connection: {
      host,
      port,
      ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
      ...(password ? { password } : {}),
      ...(url.protocol === "rediss:" ? { tls: {} } : {}),
      // BullMQ's workers block on Redis; it requires ioredis not to give up on a command.
      maxRetriesPerRequest: null,
    },
    display: `${url.protocol}//${url.host}/${name}`,
    key: Buffer.from(key, "utf8"),
  };
}

/** The job lock duration (ms) and the stalled-job check interval of workers. */
export function queueTimings(env: NodeJS.ProcessEnv): { lockDuration: number; stalledInterval: number } {
  const lockDuration = parsePositiveInteger(env.HARNESS_QUEUE_LOCK_MS ?? "") ?? DEFAULT_LOCK_MS;
  return { lockDuration, stalledInterval: Math.max(1, Math.round(lockDuration * STALLED_SHARE)) };
}

/**
 * Resolves when `ready` does, or fails saying why Redis cannot be used and what to do;
 * `lastError` is the connection's last complaint (a refused password says so).
 */
export async function waitForRedis(
  ready: Promise<unknown>,
  target: QueueTarget,
  lastError: () => string = () => "",
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const why = lastError();
      reject(
        new QueueUrlError(
          isAuthError(why)
            ? `Redis at ${target.display} refused us: ${why.split("\n")[0]}; give its password in HARNESS_QUEUE_PASSWORD or --queue-password-file <file>, or check the one given`
            : `cannot reach Redis at ${target.display} within ${REDIS_CONNECT_TIMEOUT_MS / 1000}s${why ? ` (${why})` : ""}: start redis-server there, or check --queue`,
        ),
      );
    }, REDIS_CONNECT_TIMEOUT_MS);
  });
  try {
    await Promise.race([ready, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether Redis said it wants a password, or another one. */
function isAuthError(message: string): boolean {
  return /NOAUTH|WRONGPASS|invalid password|AUTH failed/i.test(message);
}

/** BullMQ, loaded only by the queue modes (it and its Redis client weigh about 2 MB). */
export async function loadBullmq(): Promise<typeof import("bullmq")> {
  const module = await import("bullmq");
  // Bundled, BullMQ's CommonJS build shows its exports on `default` only.
  return "Queue" in module ? module : (module as unknown as { default: typeof import("bullmq") }).default;
}

// Signatures on what crosses a shared queue. Anyone who can reach the Redis can write jobs and
// complete them, so a job and a job's result count only with an HMAC-SHA256 made with the key the
// batch and its workers share (HARNESS_QUEUE_KEY or --queue-key-file, never argv). The MAC covers
// what it is (job or result), the job's id (a signed job or result copied to another job does not
// verify) and the value as canonical JSON (keys sorted at every depth, so the same value always
// gives the same bytes, whatever order Redis and JSON.parse hand its keys back in).
import { createHmac, timingSafeEqual } from "node:crypto";

/** The field a signed value carries its signature in (hex). */
const SIGNATURE_FIELD = "sig";

type Kind = "job" | "result" | "run";

/** JSON with the keys of every object sorted; `undefined` members are left out, as JSON.stringify does. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  const members = Object.keys(value)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${members.join(",")}}`;
}

function macOf(key: Buffer, kind: Kind, jobId: string, value: unknown): Buffer {
  return createHmac("sha256", key)
    .update(`harness-queue-${kind}\n${jobId}\n${canonicalJson(value)}`)
    .digest();
}

/** `value` (an object) with its signature added. */
export function sign<T extends object>(key: Buffer, kind: Kind, jobId: string, value: T): T & { sig: string } {
  return { ...value, [SIGNATURE_FIELD]: macOf(key, kind, jobId, value).toString("hex") } as T & { sig: string };
}

/**
 * The value without its signature, or why it does not count: not an object, unsigned, or a
 * signature that this key did not make over this job's id and this value.
 */
export function verify(
  key: Buffer,
  kind: Kind,
  jobId: string,
  signed: unknown,
): { value: Record<string, unknown> } | { refused: string } {
  if (typeof signed !== "object" || signed === null || Array.isArray(signed))
    return { refused: `the ${kind} is not an object` };
  const { [SIGNATURE_FIELD]: signature, ...value } = signed as Record<string, unknown>;
  if (typeof signature !== "string" || signature === "") return { refused: `the ${kind} is unsigned` };
  const expected = macOf(key, kind, jobId, value);
  const given = /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, "hex") : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { refused: `the ${kind}'s signature is not one made with this queue's key (forged, or another key)` };
  return { value };
}

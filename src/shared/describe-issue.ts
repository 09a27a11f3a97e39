// A zod issue as one line for a person fixing a file: where, then what, in our words (no zod
// "✖" or "Invalid input:" texts), so config.json and settings.json speak alike.
import type { z } from "zod";
import { closestName } from "./edit-distance.ts";

/**
 * `providers.work.api: expected "chat", ...`, `unknown key "permisions" (did you mean "permissions"?)`.
 * `knownKeys` are the top level's keys, offered for a mistyped one there.
 */
export function describeIssue(issue: z.core.$ZodIssue, knownKeys: readonly string[] = []): string {
  const where = formatPath(issue.path);
  const message =
    issue.code === "unrecognized_keys"
      ? unknownKeys(issue.keys, issue.path.length === 0 ? knownKeys : [])
      : issue.message.replace(/^Invalid input: /, "");
  return where ? `${where}: ${message}` : message;
}

/** Every issue of a failed parse on one line, each as describeIssue words it. */
export function describeIssues(error: z.ZodError, knownKeys: readonly string[] = []): string {
  return error.issues.map((issue) => describeIssue(issue, knownKeys)).join("; ");
}

function unknownKeys(keys: string[], knownKeys: readonly string[]): string {
  const meant = keys.length === 1 ? closestName(keys[0], knownKeys, 2) : undefined;
  return `unknown ${keys.length > 1 ? "keys" : "key"} ${keys.map((key) => `"${key}"`).join(", ")}${meant ? ` (did you mean "${meant}"?)` : ""}`;
}

/** `providers.myllm.models["gpt-4.1"].prices`: dots for plain names, brackets otherwise. */
function formatPath(path: PropertyKey[]): string {
  let text = "";
  for (const key of path) {
    if (typeof key === "number") text += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_$][\w$-]*$/.test(key)) text += text ? `.${key}` : key;
    else text += `[${JSON.stringify(String(key))}]`;
  }
  return text;
}

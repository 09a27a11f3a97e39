// What a command-line flag's value may be: the zod schemas FLAGS (cli-args.ts) is written in, each
// checking and coercing the typed text, with the words its error completes (`--max-turns takes ...`).
import { statSync } from "node:fs";
import { z } from "zod";
import { parsePositiveInteger } from "../shared/helpers.ts";
import { readRegularFile } from "../shared/read-regular-file.ts";

export const text = z.string();
export const toggle = z.boolean();
/** A whole number of at least 1, given as digits: `takes` completes the error (`--max-turns takes ...`). */
export const positiveInteger = (takes: string) =>
  z
    .string()
    .refine((value) => parsePositiveInteger(value) !== undefined, takes)
    .transform(Number);
/** A prompt file read by `@file` larger than this is refused: it would be paid on every request. */
const MAX_PROMPT_FILE_BYTES = 256 * 1024;
/**
 * Text, or `@file` for a file's contents. The path is relative to the directory the command was
 * typed in (where the shell completed it), also with --cwd. Read by the one regular-file reader:
 * a FIFO would hang the start and /dev/zero would fill the memory, so neither is opened.
 */
export const textOrFile = z.string().transform((value, context) => {
  if (!value.startsWith("@")) return value;
  const file = value.slice(1);
  const head = readRegularFile(file, MAX_PROMPT_FILE_BYTES);
  const why = !head
    ? whyNotReadable(file)
    : head.size > MAX_PROMPT_FILE_BYTES
      ? `${head.size} bytes, more than ${MAX_PROMPT_FILE_BYTES}`
      : undefined;
  if (head && !why) return head.bytes.toString("utf8");
  context.addIssue({ code: "custom", message: `takes text or @file; cannot read ${file}: ${why}` });
  return z.NEVER;
});
/** JSON text or `@file` holding it (`--json-schema`): parsed here, checked as JSON Schema where the session starts. */
export const jsonOrFile = textOrFile.transform((value, context) => {
  try {
    return JSON.parse(value) as unknown;
  } catch (error) {
    context.addIssue({
      code: "custom",
      message: `takes JSON Schema as JSON text or @file: ${(error as Error).message}`,
    });
    return z.NEVER;
  }
});
/** Why readRegularFile gave nothing for `file`, in the user's words. */
function whyNotReadable(file: string): string {
  try {
    const stat = statSync(file);
    if (stat.isDirectory()) return "a folder, not a file";
    if (!stat.isFile()) return "not a regular file (a FIFO, device or socket is never read)";
    return "permission denied";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? "no such file" : (code ?? (error as Error).message);
  }
}
/** An existing directory (`--cwd`). */
export const directory = z.string().superRefine((value, context) => {
  let isDirectory = false;
  try {
    isDirectory = statSync(value).isDirectory();
  } catch {
    // missing or unreadable: not a directory we can work in
  }
  if (!isDirectory) context.addIssue({ code: "custom", message: `takes an existing directory; ${value} is not one` });
});
/** A number above 0, as typed (digits, maybe a fraction): `takes` completes the error. */
export const positiveNumber = (takes: string) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/, takes)
    .refine((value) => Number(value) > 0, takes);
/** Seconds, as typed (wiring/defaults.ts turns them into milliseconds, with the variables' checks). */
export const seconds = positiveNumber("takes a number of seconds above 0");
/** One of a fixed list of words. */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, `takes ${listed(values)}`);

/** `a`, `a or b`, `a, b or c`. */
function listed(values: readonly string[]): string {
  return values.length < 2 ? values.join("") : `${values.slice(0, -1).join(", ")} or ${values.at(-1)}`;
}

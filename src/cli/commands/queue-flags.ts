// The queue's flags shared by `harness batch --queue` and `harness worker`: where its signing key
// and Redis password come from (docs/batch.md, "A shared queue").
import { parseQueueUrl, type QueueTarget } from "../../batch/queue/queue-target.ts";
import type { Flags } from "../cli-args.ts";

/** The queue `--queue` names, with its signing key and Redis password from the flags or the environment (never argv). */
export function queueTargetOf(
  flags: Flags<"queue" | "queue-key-file" | "queue-password-file">,
): QueueTarget | undefined {
  if (flags.queue === undefined) return undefined;
  const sources = { passwordFile: flags["queue-password-file"], keyFile: flags["queue-key-file"] };
  return parseQueueUrl(flags.queue, { env: process.env, ...sources });
}

/** The help lines of the queue's secrets, in `harness batch --help` and `harness worker --help`. */
export const QUEUE_SECRETS_HELP = `  --queue-key-file <file>, --queue-password-file <file>
        the key the batch and its workers sign jobs and results with (16+ characters), and
        Redis's password: each file's first line, or HARNESS_QUEUE_KEY, HARNESS_QUEUE_PASSWORD.
        The key is required with --queue; the password is never in the URL (ps shows it)
`;

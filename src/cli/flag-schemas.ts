// The flags of `harness serve` and `harness attach` (docs/serve.md), and of the queue modes of
// `harness batch` and `harness worker` (docs/batch.md), spread into FLAGS (cli-args.ts), which
// keeps the one table; their values' schemas are in flag-values.ts.
import { resolve } from "node:path";
import { z } from "zod";
import { directory } from "./flag-values.ts";

const PORT = "takes a port number (0 to 65535; 0 picks a free one)";

export const SERVE_FLAG_SPECS = {
  listen: { schema: z.string() },
  port: {
    schema: z
      .string()
      .regex(/^\d{1,5}$/, PORT)
      .transform(Number)
      .refine((port) => port <= 65_535, PORT),
  },
  "allow-remote": { schema: z.boolean() },
  "tls-cert": { schema: z.string() },
  "tls-key": { schema: z.string() },
  url: { schema: z.string().url("takes the server's address, such as http://127.0.0.1:7433/") },
};

/** `--queue` and where its secrets come from (never argv: batch/queue/queue-target.ts). */
/** `harness batch`'s dataset selection (src/batch/dataset-selection.ts reads the values; docs/batch.md). */
const DATASET_FLAG_SPECS = {
  filter: { schema: z.string() },
  slice: { schema: z.string() },
  shuffle: { schema: z.boolean() },
  seed: {
    schema: z
      .string()
      .regex(/^\d{1,10}$/, "takes a whole number from 0 to 4294967295")
      .transform(Number)
      .pipe(z.number().max(4294967295, "takes a whole number from 0 to 4294967295")),
  },
};

/** Their names, for `harness batch`'s list, and their lines in its `--help`. */
export const DATASET_FLAGS = ["filter", "slice", "shuffle", "seed"] as const;
export const DATASET_HELP = `  --shuffle --seed <n>    run the tasks in a seeded random order (first; the same on every machine)
  --filter <regex>        only tasks whose id (instance_id) matches (after --shuffle)
  --slice <a:b>           only tasks a to b of those, as Python's list[a:b] (last)
`;

const QUEUE_FLAG_SPECS = {
  queue: { schema: z.string() },
  "queue-password-file": { schema: z.string().min(1) },
  "queue-key-file": { schema: z.string().min(1) },
};

/** `harness worker`'s task environments (batch/environment/environment-policy.ts): resolved where typed, judged at the start. */
const ENVIRONMENT_FLAG_SPECS = {
  "allow-rootfs": { schema: z.array(directory.transform((dir) => resolve(dir))), multiple: true as const },
  "allow-images": { schema: z.string().min(1) },
};

/** `harness batch`'s and `harness worker`'s own flags: the queue's, the dataset selection's, the environments'. */
export const BATCH_FLAG_SPECS = {
  ...QUEUE_FLAG_SPECS,
  ...DATASET_FLAG_SPECS,
  ...ENVIRONMENT_FLAG_SPECS,
  "dry-run": { schema: z.boolean() }, // harness batch clean
  "worker-dir": { schema: z.string().min(1) }, // harness batch clean
};

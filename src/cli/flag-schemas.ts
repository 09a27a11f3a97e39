// The flags of `harness serve` and `harness attach` (docs/serve.md), and of the queue modes of
// `harness batch` and `harness worker` (docs/batch.md), spread into FLAGS (cli-args.ts), which
// keeps the one table; their values' schemas are in flag-values.ts.
import { z } from "zod";

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
export const QUEUE_FLAG_SPECS = {
  queue: { schema: z.string() },
  "queue-password-file": { schema: z.string().min(1) },
  "queue-key-file": { schema: z.string().min(1) },
};

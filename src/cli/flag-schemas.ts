// Schemas of flags' values, and the flags of `harness serve` and `harness attach` (docs/serve.md),
// spread into FLAGS (cli-args.ts), which keeps the one table.
import { z } from "zod";

/** A number above 0, as typed (digits, maybe a fraction): `takes` completes the error. */
export const positiveNumber = (takes: string) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/, takes)
    .refine((value) => Number(value) > 0, takes);
/** Seconds, as typed (wiring/defaults.ts turns them into milliseconds, with the variables' checks). */
export const seconds = positiveNumber("takes a number of seconds above 0");

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

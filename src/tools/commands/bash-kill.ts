import { z } from "zod";
import { defineTool } from "../../core/tool.ts";
import { backgroundJob } from "./background-jobs.ts";

/**
 * Stops a background process (background-jobs.ts): SIGTERM to its whole tree, SIGKILL after the
 * grace. It is `read` for approvals: it can only end what an approved bash call started.
 */
export const bashKill = defineTool({
  name: "bash_kill",
  description: "Stop a background bash process and all it started.",
  kind: "read",
  input: z.object({ id: z.number().int().positive() }),
  describe: (input) => `bash_kill ${input.id}`,
  effects: () => ({}), // a process this session started; no file
  async run(input, context) {
    const job = backgroundJob(context, input.id);
    if (typeof job === "string") return { content: job, isError: true };
    const wasRunning = job.isRunning;
    await job.kill();
    const result = job.read(wasRunning ? undefined : "[it had already ended]");
    return { ...result, isError: job.isRunning };
  },
});

import { z } from "zod";
import { defineTool } from "../../core/tool.ts";
import { backgroundJob, MAX_OUTPUT_WAIT_S } from "./background-jobs.ts";

/** A background process's output since the last read (background-jobs.ts), cut like bash's. */
export const bashOutput = defineTool({
  name: "bash_output",
  description: "A background bash process's new output since the last read, and its exit status once ended.",
  kind: "read",
  input: z.object({
    id: z.number().int().positive(),
    wait: z.number().int().min(0).max(MAX_OUTPUT_WAIT_S).optional().describe("Seconds to wait first; less if it ends"),
  }),
  describe: (input) => `bash_output ${input.id}`,
  effects: () => ({}), // output this session's process wrote; no file of the model's choosing
  async run(input, context) {
    const job = backgroundJob(context, input.id);
    if (typeof job === "string") return { content: job, isError: true };
    await job.collect((input.wait ?? 0) * 1000, context.signal);
    return job.read();
  },
});

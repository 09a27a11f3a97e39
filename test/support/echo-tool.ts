// The `echo` tool the server-state tests (Anthropic threads, OpenAI stored responses) call: it
// repeats its text, and runs `hooks.duringTool` first, so a test can race something from
// elsewhere in the middle of a turn (read at each call: a test sets it and puts it back).
import { z } from "zod";
import { defineTool } from "../../src/core/tool.ts";

export interface EchoHooks {
  duringTool: () => Promise<void>;
}

export function echoTool(hooks: EchoHooks) {
  return defineTool({
    name: "echo",
    description: "Repeats the text.",
    kind: "read",
    input: z.object({ text: z.string() }),
    run: async ({ text }) => {
      await hooks.duringTool();
      return `echo: ${text}`;
    },
  });
}

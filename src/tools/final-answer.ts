import { z } from "zod";
import { defineTool, type Tool } from "../core/tool.ts";
import type { AnswerSchema } from "./answer-schema.ts";

/**
 * Answers that fail the schema before the run gives up: each goes back to the model with its
 * errors. Three, as the loop bounds broken tool-call JSON (core/agent.ts MAX_INVALID_JSON_TURNS):
 * a model that misses the same schema three times with the errors in front of it rarely gets it
 * on the fourth, and every try is a paid call.
 */
const MAX_INVALID_ANSWERS = 3;
const INVALID_COUNT = "final_answer.invalid";

/**
 * The final-answer tool of `--json-schema` (and a batch task's `outputSchema`): its input schema is
 * the user's schema, which the model sees converted to its API's dialect as every tool schema is
 * (Tool.parameters, then providers/portable-schema.ts), and which validates what it sends (Ajv,
 * tools/answer-schema.ts). An answer that validates ends the run (ToolOutput.endsRun); one that
 * does not goes back with the errors, at most MAX_INVALID_ANSWERS times. Claude Code names the same
 * tool `StructuredOutput`; ours is snake_case as every tool name the model sees.
 */
export function finalAnswerTool(answer: AnswerSchema): Tool {
  return defineTool({
    name: "final_answer",
    description:
      "Give your final answer by calling this tool once you are done, with input that matches its schema exactly. The run ends when the answer is accepted; an answer in prose is not read.",
    kind: "read",
    // The arguments are checked against the user's schema in run(), where the errors go back to the model.
    input: z.unknown(),
    parameters: answer.schema,
    effects: () => ({}), // touches nothing: the answer goes to the run, not to a file
    describe: () => "final answer",
    async run(input, context) {
      const errors = answer.check(input);
      if (errors === undefined)
        return { content: "Answer accepted.", summary: "accepted", endsRun: { kind: "answer", value: input } };
      const tries = ((context.state.get(INVALID_COUNT) as number | undefined) ?? 0) + 1;
      context.state.set(INVALID_COUNT, tries);
      if (tries >= MAX_INVALID_ANSWERS)
        return {
          content: `Answer rejected: ${errors}`,
          isError: true,
          stopsRun: `no valid answer after ${tries} tries; the last one: ${errors}`,
        };
      return {
        content: `Answer rejected, it does not match the schema: ${errors}. Call final_answer again with a corrected answer.`,
        isError: true,
        summary: "rejected",
      };
    },
  });
}

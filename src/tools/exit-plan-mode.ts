// The plan tool: in plan mode (docs/plan-mode.md) the model ends its study by proposing a plan,
// in Markdown. The plan is a value, not prose in a reply: it is kept beside the session
// (`<session id>/plan.md`, which `harness sessions` shows), carried on the run's `done` event
// (`plan`: headless prints it, `--output json` has it as a field), kept through compaction
// (core/compaction-contract.ts) and, in the conversation, through resume. The call hands the
// turn back (ToolOutput.endsRun): the person chooses what happens next. Claude Code names this
// tool ExitPlanMode (settings/tool-names.ts), so its rules and hooks match it.
import { dirname, join } from "node:path";
import { z } from "zod";
import type { AgentEvent } from "../core/events.ts";
import { defineTool } from "../core/tool.ts";
import { makePrivateFolder } from "../shared/private-files.ts";
import { writeWhole } from "../shared/write-whole.ts";

/** Characters a plan may have: a plan to read, not a document. */
const MAX_PLAN_CHARS = 40_000;

// The bound is checked in `run`, not the schema: a length limit would become a note in the
// description on the wire (providers/portable-schema.ts), making every request longer.
const input = z.object({
  plan: z.string().describe("The plan in Markdown: what changes, where, in what order, how it is checked."),
});

export const exitPlanMode = defineTool({
  name: "exit_plan_mode",
  description:
    "Plan mode only: propose your plan for the user to approve, then end your turn; the user decides what happens next.",
  kind: "read",
  input,
  effects: () => ({}), // the plan goes beside the session, which is harness's, not the workspace's
  proposedPlan: (call) => call.plan,
  describe: (call) => `plan: ${firstHeading(call.plan)}`,
  async run(call, context) {
    if (call.plan.trim() === "" || call.plan.length > MAX_PLAN_CHARS)
      return { content: `The plan must be Markdown text of 1 to ${MAX_PLAN_CHARS} characters.`, isError: true };
    const file = planFileOf(context.spillDir);
    if (file) {
      makePrivateFolder(dirname(file));
      writeWhole(file, call.plan.endsWith("\n") ? call.plan : `${call.plan}\n`);
    }
    return {
      content: "The plan is shown to the user, who decides what happens next. Wait for their answer.",
      summary: firstHeading(call.plan),
      endsRun: { kind: "turn" },
    };
  },
});

/** Where a session keeps its plan: beside its spilled output, in the folder named by its id. */
function planFileOf(spillDir: string | undefined): string | undefined {
  return spillDir ? join(dirname(spillDir), "plan.md") : undefined;
}

/**
 * Adds to a run's `done` event the plan its last successful plan call proposed (`plan`). One
 * per run (it pairs each call's start with its end).
 */
export function proposedPlanEvents(): (event: AgentEvent) => AgentEvent {
  const pending = new Map<string, string>();
  let plan: string | undefined;
  return (event) => {
    if (event.type === "tool_start" && event.name === exitPlanMode.name) pending.set(event.id, event.arguments);
    if (event.type === "tool_end" && pending.has(event.id)) {
      const parsed = event.isError ? undefined : parsePlan(pending.get(event.id) as string);
      pending.delete(event.id);
      plan = parsed ?? plan;
    }
    return event.type === "done" && plan !== undefined ? { ...event, plan } : event;
  };
}

function parsePlan(argumentsJson: string): string | undefined {
  try {
    const parsed = input.safeParse(JSON.parse(argumentsJson));
    return parsed.success ? parsed.data.plan : undefined;
  } catch {
    return undefined;
  }
}

/** The plan's first heading (or first line), for one-line summaries. */
function firstHeading(plan: string): string {
  const lines = plan.split("\n").map((line) => line.trim());
  const heading = lines.find((line) => line.startsWith("#")) ?? lines.find(Boolean) ?? "";
  return heading.replace(/^#+\s*/, "").slice(0, 80);
}

// Plan mode (`--approve plan`; Claude Code's permission mode "plan"): the model studies the code
// and proposes a plan, and nothing changes, by construction rather than by a list of "safe"
// commands. Reads, searches and web fetches run; edits are refused except the plan file; a
// command runs without asking only where the sandbox makes the workspace and every other path
// read-only (sandbox/bwrap.ts `readOnlyWorkspace`), and asks every time where there is none; a
// tool that runs outside the sandbox (an MCP server's) asks every time. Deny and ask rules
// come first, as in every mode (policy.ts).
import type { Tool, ToolEffects } from "../core/tool.ts";
import { realTarget, touchedPaths } from "./path-policy.ts";

/** What plan mode decides about a call, in policy.ts's Decision shape; undefined: the usual rules decide. */
type PlanDecision =
  | { type: "allow" }
  | { type: "deny"; reason: string }
  | { type: "ask"; why: string; remember: never[]; explicit: true };

const NOTHING_CHANGES =
  "plan mode: nothing may change until the plan is approved. Study the code and finish the plan; once it is approved you can make changes";

/** A command in plan mode: it runs in the read-only sandbox, or, without one, only a person may allow it, once. */
export function planModeCommand(sandbox: "on" | "off" | "unavailable"): PlanDecision {
  if (sandbox === "on") return { type: "allow" };
  return {
    type: "ask",
    why: `plan mode changes nothing, and without the sandbox (${sandbox === "off" ? "turned off" : "not available here"}) this command could change files`,
    remember: [],
    explicit: true,
  };
}

/**
 * A file or other tool's call in plan mode (commands and fetches are decided before): a write to
 * anything but the plan file (`planFile`, a real path) is refused; an edit tool that does not
 * say what it writes is refused; a tool that runs outside the sandbox and declares no command
 * (an MCP server's) asks every time, since nothing bounds what it changes.
 */
export async function planModeCall(
  tool: Tool,
  effects: ToolEffects | undefined,
  planFile: string | undefined,
): Promise<PlanDecision | undefined> {
  if (!effects && tool.kind === "edit") return { type: "deny", reason: `${NOTHING_CHANGES}.` };
  if (tool.kind === "execute" && !effects?.command && !effects?.fetches)
    return {
      type: "ask",
      why: `plan mode changes nothing, and ${tool.name} runs outside the sandbox, so nothing bounds what it changes`,
      remember: [],
      explicit: true,
    };
  const writes = touchedPaths(effects).filter((file) => file.access === "write");
  if (writes.length === 0) return undefined;
  for (const file of writes) {
    const target = await realTarget(file.path);
    if (target !== planFile) return { type: "deny", reason: `${NOTHING_CHANGES} (${target} was to be written).` };
  }
  return { type: "allow" };
}

/**
 * What each model call carries while the session is in plan mode (AgentOptions.reminder), so the
 * model knows before an edit is refused. Claude Code does the same: while plan mode is on, each
 * turn reaches the model with a `<system-reminder>` saying plan mode is active, that nothing may
 * change, and that the plan goes to ExitPlanMode (https://code.claude.com/docs/en/permission-modes;
 * the reminder on every turn: anthropics/claude-code#47331, #39326). Our words, our tool's name.
 * *Decision*: sent with each call and never kept in the conversation (core/call-reminder.ts), where
 * Claude Code keeps its reminders and then needs an "exited plan mode" one after, which has
 * contradicted a stale "active" one (anthropics/claude-code#14004): here the reminder is simply
 * absent from the first call after the session leaves plan mode, and a saved or resumed session
 * holds none.
 */
export const PLAN_MODE_REMINDER = `<system-reminder>
Plan mode is on: the user wants a plan before anything changes. Change nothing: no file edits or writes, no commands that modify anything (no commits, installs or settings); such calls are refused. Study what the task needs (read, search, run commands that only look), then call exit_plan_mode once with the plan in Markdown: what changes, where, in what order, how it is checked. The user then decides whether it is carried out. A question that needs no change may be answered directly.
</system-reminder>`;

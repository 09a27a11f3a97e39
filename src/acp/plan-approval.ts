// A plan proposed in plan mode, put to the editor (docs/plan-mode.md, "Over ACP"): the plan call's
// content is the plan (Markdown, which editors render), and when the run ends with it the editor is
// asked, as Zed's Claude Code adapter asks about ExitPlanMode, with session/request_permission:
// carry it out (the mode back to what it was, in the same prompt turn) or keep planning (the turn
// ends; the next prompt is the feedback).
import { type AgentContext, methods, type PermissionOption } from "@agentclientprotocol/sdk";
import { CARRY_OUT_PROMPT } from "../shared/plan-prompts.ts";
import type { HostedModes } from "./session-modes.ts";
import { textContent } from "./session-updates.ts";

/**
 * *Decision*: two of the chat's four choices. "In a fresh context" would be a new session, which
 * ACP gives an agent no way to open for its editor (the editor opens sessions); the editor's own
 * "new thread" with the plan pasted is that. "Stop" is the editor's cancel, or "keep planning"
 * with nothing typed after.
 */
function planOptions(afterPlan: string): PermissionOption[] {
  return [
    { optionId: "carry_out", name: `Yes, carry it out (${afterPlan} mode)`, kind: "allow_once" },
    { optionId: "keep_planning", name: "No, keep planning", kind: "reject_once" },
  ];
}

/** Asks the editor about the plan; returns the prompt that carries it out (the mode switched back), or undefined. */
export async function carryOutPlan(
  client: AgentContext,
  sessionId: string,
  call: { toolCallId: string; plan: string },
  modes: HostedModes,
  signal: AbortSignal,
): Promise<string | undefined> {
  const response = await client
    .request(
      methods.client.session.requestPermission,
      {
        sessionId,
        toolCall: {
          toolCallId: call.toolCallId,
          title: "Carry out the plan?",
          kind: "switch_mode",
          content: textContent(call.plan),
        },
        options: planOptions(modes.afterPlan),
      },
      { cancellationSignal: signal, stopWaitingOnCancel: true },
    )
    .catch(() => undefined);
  if (response?.outcome.outcome !== "selected" || response.outcome.optionId !== "carry_out") return undefined;
  modes.set(modes.afterPlan);
  return CARRY_OUT_PROMPT;
}

// Commands the person runs, not the model: a command file's `` !`cmd` `` lines (run before its
// prompt is sent, as Claude Code runs them) and `!cmd` typed at the chat's prompt (Claude Code's
// bash mode). Each runs as the model's bash call would: the PreToolUse hooks, the approver (deny
// and ask rules, folder trust, the approval mode: a headless run refuses what it would ask), the
// sandbox. Only the redacted trace is yielded; the call's result is returned, never added to the
// conversation as a tool result (no reply of the model asked for it).
import { randomUUID } from "node:crypto";
import type { Agent } from "../core/agent.ts";
import type { AgentEvent } from "../core/events.ts";
import { type UserMessage, userMessage } from "../core/messages.ts";
import { REFUSED_SUMMARY, runToolCalls, toolHooksOf } from "../core/run-tools.ts";
import type { SessionRecorder } from "../session/session-recorder.ts";
import { bash } from "../tools/commands/bash.ts";

/** What a person's command gave: its output as the model's call would have had it, or why it did not run. */
export interface UserCommandResult {
  output: string;
  /** Set when it did not run: the refusal as the model would have been told it. */
  refused?: string;
}

interface UserCommandParts {
  agent: Agent;
  state: { recorder: SessionRecorder };
  outgoing<R>(events: AsyncGenerator<AgentEvent, R>): AsyncGenerator<AgentEvent, R>;
}

/** The session's two controls for a person's commands (SessionControls.runCommand, addContext). */
export function userCommandControls({ agent, state, outgoing }: UserCommandParts) {
  return {
    /** `askWhy`: asked whatever the rules and mode say (a project's command file in an untrusted folder), with that reason. */
    async *runCommand(
      command: string,
      signal?: AbortSignal,
      askWhy?: string,
    ): AsyncGenerator<AgentEvent, UserCommandResult> {
      const call = { type: "tool_call" as const, id: `user-${randomUUID()}`, name: bash.name, arguments: "" };
      call.arguments = JSON.stringify({ command });
      const ask = {
        beforeApproval: async () => ({ permission: { decision: "ask" as const, reason: askWhy, by: "harness" } }),
      };
      const options = agent.options;
      const context = { ...options.toolContext, cwd: options.cwd, signal: signal ?? new AbortController().signal };
      const hooks = [...toolHooksOf(options), ...(askWhy ? [ask] : [])];
      const run = runToolCalls([call], {
        tools: options.tools,
        approve: options.approve,
        replyWasCut: false,
        hooks,
        context: { ...context, state: new Map<string, unknown>() },
      });
      const batch = outgoing(run);
      let step = await batch.next();
      let refused = false;
      // The result message is the model's kind of record: here it only becomes the returned text.
      for (; !step.done; step = await batch.next()) {
        if (step.value.type === "tool_end" && step.value.summary === REFUSED_SUMMARY) refused = true;
        if (step.value.type !== "message") yield step.value;
      }
      // What the command printed, as Claude Code gives it; a failure's exit code stays, to be read.
      const output = (step.value.results[0]?.content ?? "").replace(/\n?\[exit code: 0\]\s*$/, "");
      return { output, ...(refused ? { refused: output } : {}) };
    },
    /** Adds the person's own context (a `!cmd` and its output) to the conversation, recorded; the model sees it with the next prompt. */
    async addContext(text: string): Promise<void> {
      const message: UserMessage = userMessage(text);
      agent.messages.push(message);
      const one = async function* (): AsyncGenerator<AgentEvent, void> {
        yield { type: "message", message };
      };
      for await (const event of outgoing(one())) state.recorder.record(event);
      state.recorder.writer.flush();
    },
  };
}

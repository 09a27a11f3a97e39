import { Agent } from "../core/agent.ts";
import { EVENT_SCHEMA_VERSION } from "../core/event-schema-version.ts";
import type { AgentEvent, RunResult } from "../core/events.ts";
import { hookContext } from "../core/hook-context.ts";
import { EMPTY_USAGE, type UserContent } from "../core/messages.ts";
import type { CommandHooks } from "./command-hooks.ts";
import { userPromptSubmit } from "./session-hook-events.ts";

/**
 * An Agent whose prompts first go through the UserPromptSubmit hooks, whose tool calls go
 * through the command hooks (the first of its tool hooks, so a PreToolUse hook's refusal holds
 * before any other hook runs), whose compactions first ask the PreCompact hooks, and whose every
 * run ends with the Stop hooks. The CLI (one-shot,
 * stream input and chat) and the ACP server use it.
 */
export class HookedAgent extends Agent {
  private readonly hooks: CommandHooks;

  constructor(options: ConstructorParameters<typeof Agent>[0], hooks: CommandHooks) {
    super({
      ...options,
      toolHooks: [hooks.toolHooks, ...(options.toolHooks ?? [])],
      beforeCompaction: options.beforeCompaction ?? hooks.preCompact,
    });
    this.hooks = hooks;
    hooks.sessionId = () => this.options.sessionId;
  }

  override async *prompt(prompt: string | UserContent, signal?: AbortSignal): AsyncGenerator<AgentEvent, RunResult> {
    const verdict = await this.hooks.userPromptSubmit(textOf(prompt), signal ?? new AbortController().signal);
    // A blocked prompt is no run of the model: no Stop hook either (Claude Code's Stop follows a reply).
    if ("block" in verdict) return yield* this.blockedRun(verdict.block, verdict.command);
    const context = [
      ...this.hooks.takeStartContext().map((text) => hookContext("session-start-hook", text)),
      ...verdict.context.map((text) => hookContext("user-prompt-submit-hook", text)),
    ];
    return yield* withStopHook(super.prompt(withContext(prompt, context), signal), this.hooks);
  }

  override continue(...args: Parameters<Agent["continue"]>): AsyncGenerator<AgentEvent, RunResult> {
    return withStopHook(super.continue(...args), this.hooks);
  }

  /** The events of a run whose prompt a hook refused: start and done, nothing sent, nothing added to the conversation. */
  private async *blockedRun(reason: string, command: string): AsyncGenerator<AgentEvent, RunResult> {
    const { provider, sessionId } = this.options;
    const session = sessionId ? { sessionId } : {};
    yield {
      type: "start",
      schemaVersion: EVENT_SCHEMA_VERSION,
      provider: provider.name,
      model: provider.model,
      ...session,
    };
    const result: RunResult = {
      type: "done",
      reason: "error",
      answer: "",
      turns: 0,
      usage: EMPTY_USAGE,
      ...session,
      error: `the prompt was not sent: the UserPromptSubmit hook "${command}" blocked it: ${reason}`,
      blockedBy: userPromptSubmit.name,
    };
    yield result;
    return result;
  }
}

/** The prompt as a hook reads it (Claude Code's `prompt` is text): its text parts, pictures left out. */
function textOf(prompt: string | UserContent): string {
  if (typeof prompt === "string") return prompt;
  return prompt.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
}

/**
 * The hooks' context (tagged) after the prompt. Text after text, not a part of its own: some wire
 * APIs glue a message's text parts together (OpenAI's chat), and the blank line keeps them apart.
 */
function withContext(prompt: string | UserContent, context: string[]): string | UserContent {
  if (context.length === 0) return prompt;
  const added = context.join("");
  return typeof prompt === "string" ? `${prompt}${added}` : [...prompt, { type: "text", text: added }];
}

async function* withStopHook(
  run: AsyncGenerator<AgentEvent, RunResult>,
  hooks: CommandHooks,
): AsyncGenerator<AgentEvent, RunResult> {
  const result = yield* run;
  await hooks.stop(result);
  return result;
}

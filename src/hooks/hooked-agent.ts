import { Agent } from "../core/agent.ts";
import type { AgentEvent, RunResult } from "../core/events.ts";
import type { CommandHooks } from "./command-hooks.ts";

/**
 * An Agent whose tool calls go through the command hooks (the first of its tool hooks, so a
 * PreToolUse hook's refusal holds before any other hook runs) and whose every run ends with the
 * Stop hooks. The CLI (one-shot, stream input and chat) and the ACP server use it.
 */
export class HookedAgent extends Agent {
  private readonly hooks: CommandHooks;

  constructor(options: ConstructorParameters<typeof Agent>[0], hooks: CommandHooks) {
    super({ ...options, toolHooks: [hooks.toolHooks, ...(options.toolHooks ?? [])] });
    this.hooks = hooks;
    hooks.sessionId = () => this.options.sessionId;
  }

  override prompt(...args: Parameters<Agent["prompt"]>): AsyncGenerator<AgentEvent, RunResult> {
    return withStopHook(super.prompt(...args), this.hooks);
  }

  override continue(...args: Parameters<Agent["continue"]>): AsyncGenerator<AgentEvent, RunResult> {
    return withStopHook(super.continue(...args), this.hooks);
  }
}

async function* withStopHook(
  run: AsyncGenerator<AgentEvent, RunResult>,
  hooks: CommandHooks,
): AsyncGenerator<AgentEvent, RunResult> {
  const result = yield* run;
  await hooks.stop(result);
  return result;
}

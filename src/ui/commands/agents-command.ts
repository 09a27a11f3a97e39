// /agents: the named agents the task tool can start (.harness/agents, .claude/agents, in the project
// and the user's folders), each with its model, tools and the file it came from (Claude Code's /agents).
import type { AgentView, CommandSpec } from "./command-spec.ts";

export function agentsText(agents: readonly AgentView[]): string {
  if (agents.length === 0) return "no named agents (.harness/agents/*.md or .claude/agents/*.md)";
  return agents
    .map((agent) => {
      const model = agent.model ?? "the session's model";
      const tools = agent.tools ? agent.tools.join(", ") : "read-only tools";
      const isolation = agent.isolation ? `, ${agent.isolation}` : "";
      return `${agent.name}: ${agent.description}\n  ${model}; ${tools}${isolation}  (${agent.path})`;
    })
    .join("\n");
}

export const AGENTS_COMMANDS: Record<string, CommandSpec> = {
  agents: {
    usage: "/agents",
    help: "the named agents the model can start, with their model, tools and file",
    run: (_, controls, say) => say(agentsText(controls.namedAgents())),
  },
};

// Chat commands about what surrounds the model: skills, background processes, the network, language servers.
import { parsePositiveInteger } from "../../shared/helpers.ts";
import { languageServersText } from "../lsp-command.ts";
import type { CommandSpec } from "./command-spec.ts";

export const WORKSPACE_COMMANDS: Record<string, CommandSpec> = {
  skills: {
    usage: "/skills",
    help: "the skills the model may read when a task matches (SKILL.md folders)",
    run: (_, controls, say) => say(controls.listSkills().join("\n")),
  },
  ps: {
    usage: "/ps [kill id]",
    help: "the background processes the model started (they end with the session); kill stops one",
    run: async (args, controls, say) => {
      if (!args) {
        const lines = controls.listBackground();
        return say(lines.length > 0 ? lines.join("\n") : "no background processes");
      }
      const [verb, id] = args.split(/\s+/);
      const number = id === undefined ? undefined : parsePositiveInteger(id);
      if (verb !== "kill" || number === undefined)
        throw new Error("/ps takes no argument, or kill and an id: /ps kill 2");
      say(await controls.killBackground(number));
    },
  },
  network: {
    usage: "/network [add|save|remove host]",
    help: "what sandboxed commands may reach, your grants, the latest connections; add (this session), save (this project)",
    run: (args, controls, say) => say(controls.network?.(args) ?? "no sandboxed network in this chat"),
  },
  lsp: {
    usage: "/lsp",
    help: "the language servers: their state, and the errors and warnings they found this session",
    run: (_, controls, say) => say(languageServersText(controls.languageServers())),
  },
};

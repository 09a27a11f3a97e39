// Chat commands about the model, how much it thinks, what it cost, the approval mode.
import type { CommandSpec } from "./command-spec.ts";

export const MODEL_COMMANDS: Record<string, CommandSpec> = {
  model: {
    usage: "/model [name]",
    help: "list the provider's models (the one in use marked), or switch to another of them",
    run: async (args, controls, say) =>
      say(args ? `now using ${await controls.switchModel(args)}` : (await controls.listModels()).join("\n")),
  },
  thinking: {
    usage: "/thinking [off|low|medium|high|tokens]",
    help: "show or set how much the model thinks",
    run: async (args, controls, say) =>
      say(args ? await controls.setThinking(args) : `thinking: ${controls.thinking()}`),
  },
  cost: {
    usage: "/cost",
    help: "tokens used in this session, and what they cost",
    run: (_, controls, say) => say(`this session: ${controls.usageAndCost()}`),
  },
  mode: {
    usage: "/mode [ask|edits|plan]",
    help: "show or switch the approval mode (Shift-Tab cycles them; plan: nothing changes, the model proposes a plan)",
    run: (args, controls, say) => say(controls.approvalMode(args)),
  },
};

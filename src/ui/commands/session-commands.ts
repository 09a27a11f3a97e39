// Chat commands about the conversation: a new one, another one, a copy, a file, taking turns back.
import { parsePositiveInteger } from "../../shared/helpers.ts";
import type { CommandSpec } from "./command-spec.ts";

export const SESSION_COMMANDS: Record<string, CommandSpec> = {
  clear: {
    usage: "/clear",
    help: "start a new session (the old one stays on disk)",
    run: (_, controls, say) => say(`new session ${controls.newSession()}`),
  },
  compact: {
    usage: "/compact [focus]",
    help: "summarise the older part of the conversation to free context",
    run: async (args, controls, say) => say(await controls.compact(args)),
  },
  resume: {
    usage: "/resume [id]",
    help: "continue another session (without an id: list recent ones)",
    run: async (args, controls, say) => {
      if (!args) return say([...controls.listSessions(), "continue one with /resume <id>"].join("\n"));
      const { said, isLeaving } = await controls.resume(args);
      say(said);
      return isLeaving ? "exit" : "continue";
    },
  },
  worktree: {
    usage: "/worktree [name]",
    help: "go on in a new git worktree of this repository, on branch harness/<name>",
    run: (args, controls, say) => {
      const { said, isLeaving } = controls.enterWorktree?.(args) ?? { said: "no worktrees here", isLeaving: false };
      say(said);
      return isLeaving ? "exit" : "continue";
    },
  },
  fork: {
    usage: "/fork",
    help: "go on in a copy of this session under a new id (the original stays as it is, as with --fork)",
    run: async (_, controls, say) => say(await controls.fork()),
  },
  sessions: {
    usage: "/sessions",
    help: "list recent sessions",
    run: (_, controls, say) => {
      const lines = controls.listSessions();
      say(lines.length > 0 ? lines.join("\n") : "no sessions yet");
    },
  },
  export: {
    usage: "/export [md|html] [file]",
    help: "write this session as a web page (default) or Markdown",
    run: (args, controls, say) => {
      const [first, ...rest] = args.split(/\s+/).filter(Boolean);
      const isFormat = first === "md" || first === "html";
      const file = (isFormat ? rest : [first, ...rest]).filter(Boolean).join(" ") || undefined;
      const format = isFormat ? first : file && /\.(md|markdown)$/i.test(file) ? "md" : "html";
      say(`wrote ${controls.exportSession(format, file)}`);
    },
  },
  undo: {
    usage: "/undo [n]",
    help: "take back the last turn (or n turns): files and conversation; lists the files and asks first",
    run: async (args, controls, say) => {
      const turns = args ? parsePositiveInteger(args) : 1;
      if (turns === undefined) throw new Error("/undo takes a number of turns, such as /undo 2");
      say(await controls.undo(turns));
    },
  },
  redo: { usage: "/redo", help: "reverse the last /undo", run: async (_, controls, say) => say(await controls.redo()) },
};

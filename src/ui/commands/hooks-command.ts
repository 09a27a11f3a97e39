// /hooks: the hooks in effect, by event, each with its matcher, command and the file it came from
// (Claude Code's /hooks lists them the same way).
import type { CommandSpec, HookView } from "./command-spec.ts";

export function hooksText(hooks: readonly HookView[]): string {
  if (hooks.length === 0) return "no hooks in effect (settings.json `hooks`; an untrusted folder's are not loaded)";
  const events = [...new Set(hooks.map((hook) => hook.event))];
  return events
    .flatMap((event) => [
      `${event}:`,
      ...hooks
        .filter((hook) => hook.event === event)
        .map((hook) => `  ${hook.matcher ? `[${hook.matcher}] ` : ""}${hook.command}  (${hook.source}: ${hook.where})`),
    ])
    .join("\n");
}

export const HOOKS_COMMANDS: Record<string, CommandSpec> = {
  hooks: {
    usage: "/hooks",
    help: "the hooks in effect, by event, each with its matcher, command and file",
    run: (_, controls, say) => say(hooksText(controls.hooksInEffect())),
  },
};

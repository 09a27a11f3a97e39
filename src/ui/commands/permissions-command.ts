// /permissions: the rules in effect, each with the file it came from, the approval mode, and the
// entries of the settings files not taken and why (Claude Code's /permissions lists its rules).
import type { Rule } from "../../permissions/rules.ts";
import type { CommandSpec, PermissionsView } from "./command-spec.ts";

function ruleLines(title: string, rules: readonly Rule[]): string[] {
  if (rules.length === 0) return [`${title}: none`];
  return [`${title}:`, ...rules.map((rule) => `  ${rule.text}  (${rule.source})`)];
}

export function permissionsText(view: PermissionsView): string {
  const lines = [
    `approval mode: ${view.mode}`,
    ...ruleLines("deny", view.deny),
    ...ruleLines("ask", view.ask),
    ...ruleLines("allow", view.allow),
  ];
  if (view.waitingForTrust.length > 0)
    lines.push(...ruleLines("not taken until this folder is trusted (allow)", view.waitingForTrust));
  if (view.notTaken.length > 0) lines.push("not taken:", ...view.notTaken.map((entry) => `  ${entry}`));
  return lines.join("\n");
}

export const PERMISSIONS_COMMANDS: Record<string, CommandSpec> = {
  permissions: {
    usage: "/permissions",
    help: "the allow, ask and deny rules in effect and their files, the approval mode, and what was not taken",
    run: (_, controls, say) => say(permissionsText(controls.permissions())),
  },
};

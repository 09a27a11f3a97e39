// A permission policy for rule tests: the sandbox on, a fresh workspace, no secret paths, the
// given rules (parsed from `source`) and mode.
import type { PermissionPolicy } from "../../src/permissions/policy.ts";
import { parseRule, type Rule } from "../../src/permissions/rules.ts";
import { tempDir } from "./helpers.ts";

export function parsedRules(texts: string[], source: string, trusted = true): Rule[] {
  return texts.map((text) => parseRule(text, source, trusted) as Rule);
}

export function rulePolicy(
  rules: { allow?: string[]; deny?: string[]; ask?: string[] },
  mode: PermissionPolicy["mode"],
  source = "/home/u/.harness/settings.json",
): PermissionPolicy {
  return {
    mode,
    allow: parsedRules(rules.allow ?? [], source),
    deny: parsedRules(rules.deny ?? [], source),
    ask: parsedRules(rules.ask ?? [], source),
    sandbox: "on",
    workspace: tempDir(),
    freeRoots: [],
    secretPaths: [],
    readableGlobs: [],
    home: "/home/u",
  };
}

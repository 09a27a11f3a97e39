// The tools of a request within what the target API takes (wire-rules.ts): names it accepts, and
// no more tools than it lists. Where a limit cannot be met as asked, one line says what was done.
import { createHash } from "node:crypto";
import type { ToolSpec } from "../core/provider.ts";
import type { WireRules } from "./wire-apis.ts";

export interface FittedTools {
  tools: ToolSpec[];
  /** Wire name → the tool's own name, for the names that had to change. */
  renamed: Map<string, string>;
  /** One line per limit that changed the request. */
  notices: string[];
}

/**
 * Decision: past the API's tool limit the request offers the first tools in order (harness's own
 * tools come before MCP servers', so the built-in ones always stay) and names the ones left out.
 * Deferring the rest behind a search tool, as Claude Code does, would change the conversation's
 * tools from turn to turn; a subset is predictable, and the line tells the user which to disable.
 */
export function fitTools(tools: readonly ToolSpec[], rules: WireRules, target: string): FittedTools {
  const renamed = new Map<string, string>();
  const notices: string[] = [];
  let kept = [...tools];
  if (rules.maxTools !== undefined && kept.length > rules.maxTools) {
    const left = kept.slice(rules.maxTools).map((tool) => tool.name);
    kept = kept.slice(0, rules.maxTools);
    notices.push(
      `${target} takes at most ${rules.maxTools} tools; ${left.length} left out of the request: ${shortList(left)} (disable an MCP server's tools to choose others)`,
    );
  }
  // Names stay unique after cleaning ("tools: Tool names must be unique."): a cleaned name that
  // another tool already holds (`notes.get` beside a tool named as its cleaned form) gets a suffix
  // derived from its own name, so it is the same in every request and maps back.
  const used = new Set(kept.map((tool) => tool.name).filter((name) => fitName(name, rules.toolName) === name));
  const fitted = kept.map((tool) => {
    let name = fitName(tool.name, rules.toolName);
    if (name !== tool.name && used.has(name))
      name = fitName(`${tool.name}\u0000`, { ...rules.toolName, pattern: /^$/ });
    used.add(name);
    if (name === tool.name) return tool;
    renamed.set(name, tool.name);
    return { ...tool, name };
  });
  if (renamed.size > 0)
    notices.push(
      `${target} refuses ${renamed.size === 1 ? "a tool name" : "tool names"} as written; sent as ${[...renamed].map(([wire, own]) => `${wire} (${own})`).join(", ")}`,
    );
  return { tools: fitted, renamed, notices };
}

/** A name the API accepts: unchanged when it fits, else its allowed characters and a short hash of it. */
export function fitName(name: string, rule: WireRules["toolName"]): string {
  if (rule.pattern.test(name) && name.length <= rule.maxLength) return name;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
  const readable = name.replace(/[^a-zA-Z0-9_-]/g, "_").replace(/^[^a-zA-Z_]/, "_");
  return `${readable.slice(0, rule.maxLength - 9)}_${hash}`;
}

function shortList(names: string[]): string {
  return names.length <= 5 ? names.join(", ") : `${names.slice(0, 5).join(", ")} and ${names.length - 5} more`;
}

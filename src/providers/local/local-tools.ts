// What the in-process model is shown of the tools: fewer of them in a small context, and their
// schemas as written, not as the grammar needs them. Types only from node-llama-cpp.
import type { ChatModelFunctions, ChatWrapper } from "node-llama-cpp";
import type { ToolSpec } from "../../core/provider.ts";

/**
 * Tools kept on a CPU or when the context is SMALL_CONTEXT tokens or less: a coding loop needs
 * these. The twelve tools' schemas were 1,698 of the first prompt's ~2,000 tokens, and a CPU reads
 * a prompt at tens of tokens a second (47 s to the first token for Qwen3 4B on 2 cores, issue 37);
 * these six take 46% fewer characters. The rest overlap them (glob: list_files and grep;
 * bash_output, bash_kill: background commands) or pay off only in long sessions (todo, task,
 * web_fetch, exit_plan_mode: plan mode's plan). Tools of MCP servers and library users are not ours to judge and are always offered.
 */
const CORE_TOOLS = new Set(["bash", "read_file", "write_file", "edit_file", "list_files", "grep"]);
const SHIPPED_EXTRAS = new Set(["glob", "web_fetch", "todo", "task", "bash_output", "bash_kill", "exit_plan_mode"]);
export const SMALL_CONTEXT = 8192;

/** The tools offered to a model in this context, on a CPU or not, and those left out (said on the load line). */
export function offeredTools(
  tools: ToolSpec[],
  where: { contextSize: number; onCpu: boolean },
): { offered: ToolSpec[]; left: string[] } {
  if (where.contextSize > SMALL_CONTEXT && !where.onCpu) return { offered: tools, left: [] };
  const offered = tools.filter((tool) => CORE_TOOLS.has(tool.name) || !SHIPPED_EXTRAS.has(tool.name));
  return { offered, left: tools.filter((tool) => !offered.includes(tool)).map((tool) => tool.name) };
}

/**
 * A tool's schema as the model reads it: the one other APIs get, less what only a validator needs
 * (`additionalProperties: false`, `$schema`). The grammar still gets toGbnfSchema's form, whose
 * `oneOf [..., null]` wrappers for optional fields cost 286 prompt tokens across the tools. The
 * grammar makes the model write every field, so an optional one says `"type": [T, "null"]`: the
 * model must know null is how it leaves one out, or it invents a value (a `limit` that cuts a read).
 */
export function documentedSchema(schema: unknown): unknown {
  const cleaned = withoutValidatorKeys(schema);
  if (typeof cleaned !== "object" || cleaned === null || Array.isArray(cleaned)) return cleaned;
  const { properties, required } = cleaned as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  if (!properties) return cleaned;
  const nullable = Object.entries(properties).map(([key, property]) => {
    if (required?.includes(key) || typeof property.type !== "string") return [key, property];
    return [key, { ...property, type: [property.type, "null"] }];
  });
  return { ...cleaned, properties: Object.fromEntries(nullable) };
}

function withoutValidatorKeys(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutValidatorKeys);
  if (typeof schema !== "object" || schema === null) return schema;
  const entries = Object.entries(schema).filter(
    ([key, value]) => key !== "$schema" && !(key === "additionalProperties" && value === false),
  );
  return Object.fromEntries(entries.map(([key, value]) => [key, withoutValidatorKeys(value)]));
}

/**
 * The chat wrapper with the tools documented from `docs()` instead of the functions the grammar is
 * built from. node-llama-cpp renders `availableFunctions` into the prompt and builds the call
 * grammar from the same object; this splits the two at the one method that renders them.
 */
export function withDocumentedTools(wrapper: ChatWrapper, docs: () => ChatModelFunctions | undefined): ChatWrapper {
  return new Proxy(wrapper, {
    get(target, property, receiver) {
      if (property !== "generateContextState") return Reflect.get(target, property, receiver);
      return (options: Parameters<ChatWrapper["generateContextState"]>[0]) =>
        target.generateContextState({
          ...options,
          ...(options.availableFunctions ? { availableFunctions: docs() ?? options.availableFunctions } : {}),
        });
    },
  });
}

/** The functions as documented to the model: same names and descriptions, schemas as written. */
export function toDocumentedFunctions(tools: ToolSpec[]): ChatModelFunctions | undefined {
  if (tools.length === 0) return undefined;
  return Object.fromEntries(
    tools.map((tool) => [
      tool.name,
      {
        description: tool.description,
        params: documentedSchema(tool.parameters) as ChatModelFunctions[string]["params"],
      },
    ]),
  );
}

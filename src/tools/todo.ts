import { z } from "zod";
import { type TodoItem, todoItemSchema } from "../core/event-schema.ts";
import type { AgentEvent } from "../core/events.ts";
import { defineTool } from "../core/tool.ts";
import { formatTodoItem } from "../shared/helpers.ts";

/** Steps one list may hold: a plan, not a backlog. */
const MAX_TODO_ITEMS = 20;

const input = z.object({ items: z.array(todoItemSchema).max(MAX_TODO_ITEMS) });

/**
 * The model's plan, which the user sees: the whole list each call (so it can never drift from
 * what the model believes). The session turns each successful call into a `todo` event
 * (create-session.ts), which the terminal pins, stream-json carries and the session keeps.
 */
export const todo = defineTool({
  name: "todo",
  description:
    "Keep a short plan the user sees for multi-step work: send the whole list each time, marking one step in_progress as you start it and done when finished.",
  kind: "read",
  input,
  effects: () => ({}), // the plan lives in the run's state, not in a file
  plan: (call) => call.items,
  describe: (call) => `todo ${call.items.filter((item) => item.status === "done").length}/${call.items.length} done`,
  async run(call) {
    const lines = call.items.map(formatTodoItem);
    return {
      content: lines.length > 0 ? `Plan updated:\n${lines.join("\n")}` : "Plan cleared.",
      summary: `${call.items.length} steps`,
    };
  },
});

/**
 * Turns a run's events into the same events plus a `todo` event after each successful todo
 * call, carrying the list it set. One per run (it pairs each call's start with its end).
 */
export function todoEvents(): (event: AgentEvent) => AgentEvent[] {
  const pending = new Map<string, string>();
  return (event) => {
    if (event.type === "tool_start" && event.name === todo.name) pending.set(event.id, event.arguments);
    if (event.type !== "tool_end" || !pending.has(event.id)) return [event];
    const items = event.isError ? undefined : todoListOf(pending.get(event.id) as string);
    pending.delete(event.id);
    return items ? [event, { type: "todo", items }] : [event];
  };
}

/** The list a `todo` call's arguments set, or undefined when they are not a valid list. */
export function todoListOf(argumentsJson: string): TodoItem[] | undefined {
  try {
    const parsed = input.safeParse(JSON.parse(argumentsJson));
    return parsed.success ? parsed.data.items : undefined;
  } catch {
    return undefined;
  }
}

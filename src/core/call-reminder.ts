// A note a session adds to each model call without keeping it: the approval mode's reminder
// (plan mode: permissions/plan-mode-reminder.ts). It goes on the newest message, where a model
// reads it as about this step, and never into the conversation, so it is gone from the next call
// once the session leaves the mode, and the saved session, a resume, a compaction never see it.
import type { Message } from "./messages.ts";
import type { ModelRequest } from "./provider.ts";

/** A request as the loop builds it: the conversation, and the reminder this one call adds to it. */
export interface RemindedRequest extends ModelRequest {
  reminder?: string;
}

/**
 * The request as sent: `reminder` as a last text part of the newest message when that is the
 * user's, or as a user message after tool results. After a reply (a paused turn the server goes
 * on with) nothing is added: the call continues that reply. The conversation is left as it is.
 */
export function sentRequest({ reminder, ...request }: RemindedRequest): ModelRequest {
  return reminder ? { ...request, messages: withReminder(request.messages, reminder) } : request;
}

function withReminder(messages: Message[], reminder: string): Message[] {
  const newest = messages.at(-1);
  if (!newest || newest.role === "assistant") return messages;
  const part = { type: "text" as const, text: reminder };
  if (newest.role === "tool") return [...messages, { role: "user", content: [part] }];
  return [...messages.slice(0, -1), { ...newest, content: [...newest.content, part] }];
}

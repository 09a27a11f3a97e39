// What goes back to the API: a conversation converted once, at the edge, for the provider, model
// and wire API the next request goes to. Replies of that same source go back whole (signatures,
// encrypted reasoning, per-call fields); replies of another source lose what only their source
// could read. Pure, so every switch can be tested without a server.
import { createHash } from "node:crypto";
import type { AssistantMessage, Message, ReplySource, ToolCallPart } from "../core/messages.ts";
import type { ApiKind, IdRule, WireRules } from "./wire-apis.ts";
import { hostOf } from "./wire-rules.ts";

/** Where a request goes (provider settings have it all). */
export interface ReplayTarget {
  api: ApiKind;
  name: string;
  model: string;
  baseUrl: string;
}

/** The source a reply from this target is tagged with. */
export function sourceOf(target: ReplayTarget): ReplySource {
  return { api: target.api, provider: target.name, model: target.model, host: hostOf(target.baseUrl) };
}

/**
 * Whether a reply was written by this same provider, model and wire API, so its opaque data may
 * go back. A reply recorded before replies carried their source is judged by its API and the
 * model its server named, which may be a dated snapshot of the one asked for
 * (`claude-sonnet-4-5-20250929` for `claude-sonnet-4-5`).
 */
export function isOwnReply(message: AssistantMessage, target: ReplySource): boolean {
  const source = message.source;
  if (!source) return message.api === target.api && (!message.model || sameModel(message.model, target.model));
  return (
    source.api === target.api &&
    source.provider === target.provider &&
    source.model === target.model &&
    source.host === target.host
  );
}

/**
 * The conversation as the target takes it:
 * - a reply of another source keeps its text and tool calls; its thinking is dropped (decision:
 *   another model's reasoning cannot be verified by this one, is refused when signed for another
 *   model, and replayed as text it would read as something said to the user), and so are its
 *   provider fields (`reasoning_details`, `extra_content`, wire blocks), which strict servers refuse;
 * - tool-call ids that break the target's rule are mapped, the same way in a call and its result;
 * - a reply of this same source goes back as it came, whitespace-only text included (Writer's,
 *   OpenRouter's and Kimi's recorded streams send some around their tool calls: the wire corpus's
 *   avian-kimi recording); the adapter leaves out only what its own API refuses (Anthropic: "text
 *   content blocks must contain non-whitespace text");
 * - whitespace-only text of users and of other sources is not sent, and a message left with nothing
 *   is left out.
 */
export function forTarget(messages: readonly Message[], target: ReplayTarget, rules: WireRules): Message[] {
  const source = sourceOf(target);
  const out: Message[] = [];
  // Ids the target minted itself go back as they came (a vLLM server's 46-character ids are its
  // own, whatever OpenAI's 40-character rule says), and so do their results' ids.
  const ownIds = new Set<string>();
  for (const message of messages) {
    // Only a reply that says its source: one recorded before may have come from another host.
    if (message.role !== "assistant" || !message.source || !isOwnReply(message, source)) continue;
    for (const part of message.content) if (part.type === "tool_call") ownIds.add(part.id);
  }
  for (const message of messages) {
    switch (message.role) {
      case "user": {
        const content = message.content.filter((part) => part.type !== "text" || part.text.trim() !== "");
        if (content.length > 0) out.push(content.length === message.content.length ? message : { ...message, content });
        break;
      }
      case "assistant": {
        const converted = isOwnReply(message, source) ? ownReply(message, rules, ownIds) : foreignReply(message, rules);
        if (converted.content.length > 0 || converted.providerData) out.push(converted);
        break;
      }
      case "tool":
        out.push(
          ownIds.has(message.toolCallId)
            ? message
            : { ...message, toolCallId: mapId(message.toolCallId, rules.toolCallId) },
        );
        break;
    }
  }
  return out;
}

function sameModel(replied: string, asked: string): boolean {
  return replied.startsWith(asked) || asked.startsWith(replied);
}

/** The reply itself when it goes back unchanged (the common case: no copy per message per step, see issue 52). */
function ownReply(message: AssistantMessage, rules: WireRules, ownIds: Set<string>): AssistantMessage {
  if (message.content.every((part) => part.type !== "tool_call" || ownIds.has(part.id))) return message;
  const content = message.content.flatMap((part): AssistantMessage["content"] => {
    if (part.type === "tool_call" && !ownIds.has(part.id)) return [{ ...part, id: mapId(part.id, rules.toolCallId) }];
    return [part];
  });
  return { ...message, content };
}

function foreignReply(message: AssistantMessage, rules: WireRules): AssistantMessage {
  const content = message.content.flatMap((part): AssistantMessage["content"] => {
    if (part.type === "text") return part.text.trim() ? [part] : [];
    if (part.type === "thinking") return [];
    const call: ToolCallPart = {
      type: "tool_call",
      id: mapId(part.id, rules.toolCallId),
      name: part.name,
      arguments: part.arguments,
    };
    return [call];
  });
  const { providerData: _wire, api: _api, ...rest } = message;
  return { ...rest, content };
}

/**
 * An id the target accepts: unchanged when it fits, else one derived from it alone (a hash), so
 * a call and its result map alike in every request and two ids never become one.
 */
export function mapId(id: string, rule: IdRule): string {
  if (rule.pattern.test(id) && id.length <= rule.maxLength) return id;
  const hash = createHash("sha256")
    .update(id)
    .digest("base64")
    .replace(/[^a-zA-Z0-9]/g, "");
  if (rule.fixedLength) return hash.slice(0, rule.fixedLength);
  const readable = id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, Math.max(0, rule.maxLength - 13));
  return `${readable ? `${readable}_` : "call_"}${hash.slice(0, 12)}`.slice(0, rule.maxLength);
}

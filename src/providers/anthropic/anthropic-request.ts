// Neutral to wire for the Anthropic Messages API: pure functions, tested without a server.
import { type AssistantMessage, assertNever, type ImagePart, type Message } from "../../core/messages.ts";
import type { ModelRequest } from "../../core/provider.ts";
import type { AdapterSettings } from "../adapter-settings.ts";
import { modelFact } from "../model-catalogue.ts";
import { portableSchema } from "../portable-schema.ts";
import { jsonHeaders } from "../request-headers.ts";
import { leftOut, type PlanTarget, type ThinkingLevel, type ThinkingPlan, thinkingSpec } from "../thinking-levels.ts";
import { ANTHROPIC_API, parseInput } from "./anthropic-stream.ts";

/** One content block as the Messages API takes it. */
type WireBlock = Record<string, unknown>;

/** One Messages API message; roles alternate, starting with `user`. */
export interface WireMessage {
  role: "user" | "assistant";
  content: WireBlock[];
}

/**
 * The output cap a request asks for when none is configured: the model's own limit (the catalogue's),
 * at most 32000. Claude 3.7 and 4.x allow more, but that already fits long file writes in one reply.
 */
const HARNESS_MAX_TOKENS = 32_000;
/** Other models behind Anthropic-compatible endpoints: a cap every such server accepts. */
const FALLBACK_MAX_TOKENS = 8192;

const EPHEMERAL = { type: "ephemeral" } as const;

/**
 * The request body for `POST /v1/messages`, with the thinking fields (anthropicThinking). Prompt caching: breakpoints on the last tool and
 * on the system block (the stable prefix), and at the end of the conversation, so the next
 * request reads everything before its new messages from the cache (see `markCacheBreakpoints`).
 */
export function toAnthropicRequest(
  request: ModelRequest,
  model: string,
  thinkingFields: Record<string, unknown> = {},
  serverTools: WireBlock[] = [],
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model,
    max_tokens: request.maxTokens ?? defaultMaxTokens(model),
    messages: markCacheBreakpoints(toWireMessages(request.messages)),
    stream: true,
  };
  if (thinkingFields.thinking && continuesForeignToolTurn(body.messages as WireMessage[])) {
    // "When `thinking` is enabled, a final `assistant` message must start with a thinking block
    // ... To avoid this requirement, disable `thinking`" (lbjlaq/Antigravity-Manager#139,
    // https://docs.claude.com/en/docs/build-with-claude/extended-thinking): a tool loop another
    // model began goes on without thinking until its next reply of our own.
    thinkingFields = {};
  }
  if (request.system) body.system = [{ type: "text", text: request.system, cache_control: EPHEMERAL }];
  // Server tools first: the cache breakpoint on the last tool then covers them too.
  const tools: WireBlock[] = [
    ...serverTools,
    ...request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: portableSchema(tool.parameters), // Anthropic takes any schema; proxies to other models do not
    })),
  ];
  if (tools.length > 0)
    body.tools = tools.map((tool, index) =>
      index === tools.length - 1 ? { ...tool, cache_control: EPHEMERAL } : tool,
    );
  return { ...body, ...thinkingFields };
}

/** Whether the request ends in tool results answering an assistant turn that has no thinking block of its own. */
function continuesForeignToolTurn(messages: WireMessage[]): boolean {
  const last = messages.at(-1);
  if (last?.role !== "user" || !last.content.some((block) => block.type === "tool_result")) return false;
  const turn = messages.at(-2);
  const first = turn?.role === "assistant" ? turn.content[0] : undefined;
  return first?.type !== "thinking" && first?.type !== "redacted_thinking";
}

/** The server-side tools a provider's settings turn on (config.json `webSearch`). */
export function serverToolsFor(settings: { webSearch?: { maxUses: number } }): WireBlock[] {
  return settings.webSearch
    ? [{ type: "web_search_20250305", name: "web_search", max_uses: settings.webSearch.maxUses }]
    : [];
}

export function defaultMaxTokens(model: string): number {
  const limit = modelFact({ model }, "maxOutput")?.value;
  return limit === undefined ? FALLBACK_MAX_TOKENS : Math.min(limit, HARNESS_MAX_TOKENS);
}

/** The Messages API version harness speaks; every Anthropic request names it. */
export const ANTHROPIC_VERSION = "2023-06-01";

/**
 * The headers of an Anthropic request: the key as `x-api-key` (the header the API documents and
 * Anthropic-compatible servers read; a placeholder when there is none), the API version, and the
 * settings' own headers, which win whatever their case.
 */
export function anthropicHeaders(settings: Pick<AdapterSettings, "apiKey" | "headers">): Record<string, string> {
  // A gateway's bearer token (ANTHROPIC_AUTH_TOKEN, or an `authorization` header in config.json)
  // with no key: no placeholder `x-api-key`, which some gateways take over the token.
  const bearerOnly =
    !settings.apiKey && Object.keys(settings.headers ?? {}).some((name) => name.toLowerCase() === "authorization");
  return jsonHeaders(
    { ...(bearerOnly ? {} : { "x-api-key": settings.apiKey || "no-key" }), "anthropic-version": ANTHROPIC_VERSION },
    settings.headers,
  );
}

/**
 * Anthropic budgets per level, each kept under max_tokens with room left for the answer.
 * Anthropic's minimum budget is 1024; high leaves about a quarter of Claude's default 32000 cap.
 */
const ANTHROPIC_BUDGETS = { low: 2048, medium: 8192, high: 24_576 } as const;
const MIN_ANTHROPIC_BUDGET = 1024;
/** Output tokens a level's budget leaves for the answer when max_tokens is small. */
const ANSWER_ROOM = 1024;

/** Anthropic's `thinking` field: a budget under max_tokens; off is no field (it thinks only when asked to). */
export function anthropicThinking(target: PlanTarget, level: ThinkingLevel): ThinkingPlan {
  if (level === "off") return { fields: {} };
  // Claude 3 and 3.5 refuse the field ("'claude-3-5-sonnet-20241022' does not support thinking."): the catalogue knows which.
  if (thinkingSpec(target) === false) return leftOut(target, level, `${target.model} does not support thinking`);
  const maxTokens = target.maxTokens ?? defaultMaxTokens(target.model);
  const budget = typeof level === "number" ? level : Math.min(ANTHROPIC_BUDGETS[level], maxTokens - ANSWER_ROOM);
  // A flag's budget was refused with exit 2 already (anthropicBudgetProblem); one typed in /thinking is told here.
  if (budget < MIN_ANTHROPIC_BUDGET || budget >= maxTokens)
    return leftOut(
      target,
      level,
      `Anthropic takes a budget of at least ${MIN_ANTHROPIC_BUDGET} tokens, below max_tokens (${maxTokens})`,
    );
  return { fields: { thinking: { type: "enabled", budget_tokens: budget } } };
}

/**
 * Anthropic rejects a budget under its minimum or not below max_tokens: said before the call, as
 * a usage error. (Elsewhere a budget that cannot be carried is left out with a notice.)
 */
export function anthropicBudgetProblem(budget: number, model: string, maxTokens?: number): string | undefined {
  const cap = maxTokens ?? defaultMaxTokens(model);
  if (budget < MIN_ANTHROPIC_BUDGET) return `--thinking takes at least ${MIN_ANTHROPIC_BUDGET} tokens`;
  if (budget >= cap)
    return `--thinking ${budget} must be below the output limit (${cap} tokens); raise --max-tokens or lower --thinking`;
  return undefined;
}

/**
 * The conversation in Messages form. Tool results become `tool_result` blocks of a user
 * message; consecutive same-role messages are merged (the API wants roles to alternate), and
 * in a user message every tool_result comes before any other block. Empty text is never sent.
 */
export function toWireMessages(messages: Message[]): WireMessage[] {
  const wire: WireMessage[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "user":
        append(
          wire,
          "user",
          message.content.flatMap((part): WireBlock[] => {
            if (part.type === "image") return [imageBlock(part)];
            return part.text ? [{ type: "text", text: part.text }] : [];
          }),
        );
        break;
      case "assistant":
        append(wire, "assistant", toAssistantBlocks(message));
        break;
      case "tool": {
        const result: WireBlock = { type: "tool_result", tool_use_id: message.toolCallId };
        // A result with images is a list of blocks: its text, then the pictures.
        if (message.images?.length)
          result.content = [
            ...(message.content ? [{ type: "text", text: message.content }] : []),
            ...message.images.map(imageBlock),
          ];
        else if (message.content) result.content = message.content;
        if (message.isError) result.is_error = true;
        append(wire, "user", [result]);
        break;
      }
      default:
        assertNever(message);
    }
  }
  return wire;
}

function imageBlock(part: ImagePart): WireBlock {
  return { type: "image", source: { type: "base64", media_type: part.mediaType, data: part.data } };
}

/**
 * Thinking goes back unchanged (with its signature, or as redacted data) only to the API that
 * wrote it; other APIs' reasoning is dropped, as it has no signature Anthropic would accept.
 */
function toAssistantBlocks(message: AssistantMessage): WireBlock[] {
  const isOwn = message.api === ANTHROPIC_API;
  // A reply with server-side blocks (web search, code execution, compaction) goes back exactly
  // as it came: a paused turn resumes from it, and the blocks cannot be rebuilt from the parts.
  const wire = message.providerData?.content;
  // Whitespace-only text is refused in any block ("text content blocks must contain non-whitespace text").
  if (isOwn && Array.isArray(wire))
    return (structuredClone(wire) as WireBlock[]).filter(
      (block) => block.type !== "text" || String(block.text ?? "").trim() !== "",
    );
  const blocks: WireBlock[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case "thinking":
        if (!isOwn) break;
        if (part.redactedData) blocks.push({ type: "redacted_thinking", data: part.redactedData });
        else if (part.signature) blocks.push({ type: "thinking", thinking: part.text, signature: part.signature });
        break;
      case "text":
        // Whitespace-only text is refused here too; replay.ts keeps it in a reply of this source.
        if (part.text.trim()) blocks.push({ type: "text", text: part.text });
        break;
      case "tool_call":
        blocks.push({ type: "tool_use", id: part.id, name: part.name, input: parseInput(part.arguments) });
        break;
      default:
        assertNever(part);
    }
  }
  return blocks;
}

function append(wire: WireMessage[], role: WireMessage["role"], blocks: WireBlock[]): void {
  if (blocks.length === 0) return;
  const last = wire.at(-1);
  if (last?.role !== role) {
    wire.push({ role, content: blocks });
    return;
  }
  const all = [...last.content, ...blocks];
  const isResult = (block: WireBlock) => block.type === "tool_result";
  last.content = [...all.filter(isResult), ...all.filter((block) => !isResult(block))];
}

/**
 * Cache breakpoints on the conversation: the last block of the newest message (written for the
 * next request to read), and the last block of the user message before it (where the previous
 * request ended, so the read is exact however many blocks were added since; the API's own
 * look-back stops after 20 blocks). With the tools and system ones that makes at most 4, the
 * API's limit. Thinking blocks cannot carry a breakpoint, so the last other block gets it.
 */
function markCacheBreakpoints(messages: WireMessage[]): WireMessage[] {
  const newest = messages.length - 1;
  let previousUser = newest - 1;
  while (previousUser >= 0 && messages[previousUser].role !== "user") previousUser--;
  for (const index of [previousUser, newest]) {
    const block = [...(messages[index]?.content ?? [])]
      .reverse()
      .find((b) => b.type !== "thinking" && b.type !== "redacted_thinking");
    if (block) block.cache_control = EPHEMERAL;
  }
  return messages;
}

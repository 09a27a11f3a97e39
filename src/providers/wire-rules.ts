// What each API accepts of a conversation, as data: tool-call ids, tool names, how many tools,
// image sizes. Beside openai-compat.ts (chat-completions quirks); replay.ts and tool-limits.ts apply
// these before a request leaves, so a conversation from another provider is sent in a form the
// target takes instead of failing every turn with a 400. Each rule names where it comes from.
import type { ApiKind } from "./wire-apis.ts";

/** What a tool-call id must look like. An id that does not fit is mapped (replay.ts). */
export interface IdRule {
  pattern: RegExp;
  maxLength: number;
  /** The ids are exactly this many letters and digits (Mistral). */
  fixedLength?: number;
}

export interface WireRules {
  toolCallId: IdRule;
  /** Tool (function) names; one that does not fit is renamed for the request and mapped back. */
  toolName: { pattern: RegExp; maxLength: number };
  /** The most tools one request may list. */
  maxTools?: number;
  /** The largest image, in bytes once decoded. */
  maxImageBytes?: number;
}

/** The target a request goes to (provider settings have it all). */
export interface RulesTarget {
  api: ApiKind;
  name: string;
  baseUrl: string;
}

/** `^[a-zA-Z0-9_-]{1,64}$`: OpenAI's function names and Anthropic's tool names alike. */
const NAME_64 = { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 64 };

const BY_API: Record<Exclude<ApiKind, "local">, WireRules> = {
  // Chat-completions servers take any id OpenAI takes; OpenAI caps it at 40 ("Invalid
  // 'messages[2].tool_calls[0].id': string too long. Expected a string with maximum length 40",
  // Portkey-AI/gateway#1062). Names: https://platform.openai.com/docs/api-reference/chat/create
  // (tools.function.name "a-z, A-Z, 0-9, underscores and dashes, maximum length of 64").
  openai: { toolCallId: { pattern: /^[\x21-\x7e]+$/, maxLength: 40 }, toolName: NAME_64 },
  responses: { toolCallId: { pattern: /^[\x21-\x7e]+$/, maxLength: 64 }, toolName: NAME_64 },
  // "messages.1.content.1.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
  // (CommandCodeAI/command-code#323, RooCodeInc/Roo-Code#10649); names "tools.7.custom.name: String
  // should match pattern '^[a-zA-Z0-9_-]{1,64}$'" (apify/tester-mcp-client#11); images at most 5 MB
  // each: https://docs.claude.com/en/docs/build-with-claude/vision#faq
  anthropic: {
    toolCallId: { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 64 },
    toolName: NAME_64,
    maxImageBytes: 5 * 1024 * 1024,
  },
  // Calls pair with their responses by order natively; ids are not sent. Names: "a-z, A-Z, 0-9, or
  // contain underscores, colons, dots, and dashes, with a maximum length of 64"
  // (https://ai.google.dev/api/caching#FunctionDeclaration); inline data at most 20 MB per request
  // (https://ai.google.dev/gemini-api/docs/image-understanding).
  gemini: {
    toolCallId: { pattern: /^[\x21-\x7e]+$/, maxLength: 64 },
    toolName: { pattern: /^[a-zA-Z_][a-zA-Z0-9_.:-]*$/, maxLength: 64 },
    maxImageBytes: 20 * 1024 * 1024,
  },
};

/** Servers with rules of their own, matched on the base URL's host or the provider's name; first match wins. */
const BY_SERVER: Array<{ host: RegExp; name: RegExp; rules: Partial<WireRules> }> = [
  // "Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of 9."
  // (karthink/gptel#1203, anomalyco/opencode#1680, mistralai/mistral-vibe#1075)
  {
    host: /(^|\.)mistral\.ai$/,
    name: /^mistral$/,
    rules: { toolCallId: { pattern: /^[a-zA-Z0-9]{9}$/, maxLength: 9, fixedLength: 9 } },
  },
  // "Invalid 'tools': array too long. Expected an array with maximum length 128"
  // (https://platform.openai.com/docs/api-reference/chat/create: "A max of 128 functions are supported").
  { host: /(^|\.)openai\.com$/, name: /^openai$/, rules: { maxTools: 128, maxImageBytes: 20 * 1024 * 1024 } },
];

export function rulesFor(target: RulesTarget): WireRules {
  const api = target.api === "local" ? "openai" : target.api;
  const host = hostnameOf(target.baseUrl);
  const server = BY_SERVER.find((entry) => entry.host.test(host) || entry.name.test(target.name));
  return { ...BY_API[api], ...server?.rules };
}

/** The base URL's host and port, without credentials or path ("" when it is no URL). */
export function hostOf(baseUrl: string): string {
  return URL.canParse(baseUrl) ? new URL(baseUrl).host : "";
}

function hostnameOf(baseUrl: string): string {
  return URL.canParse(baseUrl) ? new URL(baseUrl).hostname : "";
}

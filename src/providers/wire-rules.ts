// What a target accepts of a conversation, as data: its API's rules (tool-call ids, tool names,
// image sizes: the record's, wire-apis.ts) with its server's own on top. Beside openai-compat.ts
// (chat-completions quirks); replay.ts and tool-limits.ts apply these before a request leaves, so
// a conversation from another provider is sent in a form the target takes instead of failing
// every turn with a 400. Each rule names where it comes from.
import { type ApiKind, apiRecord, type WireRules } from "./wire-apis.ts";

/** The target a request goes to (provider settings have it all). */
export interface RulesTarget {
  api: ApiKind;
  name: string;
  baseUrl: string;
}

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
  const host = hostnameOf(target.baseUrl);
  const server = BY_SERVER.find((entry) => entry.host.test(host) || entry.name.test(target.name));
  return { ...apiRecord(target.api).rules, ...server?.rules };
}

/** The base URL's host and port, without credentials or path ("" when it is no URL). */
export function hostOf(baseUrl: string): string {
  return URL.canParse(baseUrl) ? new URL(baseUrl).host : "";
}

function hostnameOf(baseUrl: string): string {
  return URL.canParse(baseUrl) ? new URL(baseUrl).hostname : "";
}

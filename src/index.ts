// The public library API. The CLI is built on exactly these pieces.
export { Agent, runAgent, MAX_TURNS, type AgentOptions, type RunOptions } from "./core/agent.ts";
export type { AgentEvent, DoneReason, RunResult } from "./core/events.ts";
export * from "./core/messages.ts";
export { ProviderError, type ModelEvent, type ModelRequest, type Provider, type ProviderErrorKind, type ToolSpec } from "./core/provider.ts";
export type { ApprovalDecision, ApprovalRequest, ApproveFn } from "./core/run-tools.ts";
export { defineTool, toToolSpec, type Tool, type ToolContext, type ToolKind, type ToolOutput } from "./core/tool.ts";
export { buildSystemPrompt, loadProjectInstructions } from "./core/system-prompt.ts";
export { createProvider, type ApiKind, type ProviderSettings } from "./providers/index.ts";
export { resolveProvider, PRESETS } from "./config.ts";
export { codingTools } from "./tools/index.ts";
export { bash } from "./tools/bash.ts";

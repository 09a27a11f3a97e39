// The public library API. The CLI is built on exactly these pieces.
export { Agent, type AgentOptions, MAX_TURNS, type RunOptions, runAgent } from "./core/agent.ts";
export type { CompactionHook, CompactionResult } from "./core/compaction.ts";
export type { ContextOptions } from "./core/context-budget.ts";
export { agentEventSchema, EVENT_SCHEMA_VERSION } from "./core/event-schema.ts";
export type { AgentEvent, DoneReason, RunResult } from "./core/events.ts";
export { type InstructionPlaces, loadInstructions } from "./core/instruction-files.ts";
export * from "./core/messages.ts";
export {
  type ModelEvent,
  type ModelRequest,
  type Provider,
  ProviderError,
  type ProviderErrorKind,
  type ToolSpec,
} from "./core/provider.ts";
export type { ApprovalDecision, ApprovalRequest, ApproveFn, ToolCallHooks, ToolHook } from "./core/run-tools.ts";
export { buildSystemPrompt } from "./core/system-prompt.ts";
export {
  defineTool,
  type SessionToolContext,
  type Tool,
  type ToolContext,
  type ToolEffects,
  type ToolKind,
  type ToolOutput,
  toToolSpec,
  type WrapCommand,
} from "./core/tool.ts";
export type { Prices } from "./providers/catalogue/model-entry.ts";
export { resolveContextWindow } from "./providers/context-window.ts";
export { createProvider } from "./providers/create-provider.ts";
export type { ApiKind, ProviderSettings } from "./providers/index.ts";
export { costOf, formatUsageAndCost, lookupPrices } from "./providers/pricing.ts";
export {
  ServeClient,
  ServeClientError,
  type ServeConnection,
  type ServerEvent,
  type SessionSummary,
  type StreamItem,
} from "./server/serve-client.ts";
export { bash } from "./tools/commands/bash.ts";
export { codingTools } from "./tools/index.ts";
export { type HarnessConfig, loadConfigFile } from "./wiring/config-file.ts";
export { createSession, type Session, type SessionOptions, SessionSetupError } from "./wiring/create-session.ts";
export { PRESETS } from "./wiring/defaults.ts";
export { resolveProvider } from "./wiring/resolve-provider.ts";

// The public library API. The CLI is built on exactly these pieces.
export { Agent, runAgent, MAX_TURNS, type AgentOptions, type RunOptions } from "./core/agent.ts";
export type { AgentEvent, DoneReason, RunResult } from "./core/events.ts";
export { agentEventSchema, EVENT_SCHEMA_VERSION } from "./core/event-schema.ts";
export * from "./core/messages.ts";
export {
  ProviderError,
  type ModelEvent,
  type ModelRequest,
  type Provider,
  type ProviderErrorKind,
  type ToolSpec,
} from "./core/provider.ts";
export type { ApprovalDecision, ApprovalRequest, ApproveFn, ToolCallHooks, ToolHook } from "./core/run-tools.ts";
export type { ContextOptions } from "./core/context-budget.ts";
export type { CompactionHook, CompactionResult } from "./core/compaction.ts";
export {
  defineTool,
  toToolSpec,
  type Tool,
  type ToolContext,
  type SessionToolContext,
  type ToolEffects,
  type ToolKind,
  type ToolOutput,
  type WrapCommand,
} from "./core/tool.ts";
export { type InstructionPlaces, loadInstructions } from "./core/instruction-files.ts";
export { buildSystemPrompt } from "./core/system-prompt.ts";
export { createProvider } from "./providers/create-provider.ts";
export type { ApiKind, ProviderSettings } from "./providers/index.ts";
export { PRESETS } from "./wiring/defaults.ts";
export { resolveProvider } from "./wiring/resolve-provider.ts";
export { loadConfigFile, type HarnessConfig } from "./wiring/config-file.ts";
export { createSession, SessionSetupError, type Session, type SessionOptions } from "./wiring/create-session.ts";
export { resolveContextWindow } from "./providers/context-window.ts";
export { costOf, formatUsageAndCost, lookupPrices, type Prices } from "./providers/pricing.ts";
export { codingTools } from "./tools/index.ts";
export { bash } from "./tools/commands/bash.ts";

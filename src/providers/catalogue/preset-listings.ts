// The models each built-in provider preset lists of its own: what the chat's `/model` offers when
// the endpoint cannot list them (said so beside it), as the vendors listed them in November 2025.
// A preset's entry applies only while that provider is in use and comes before the built-in
// entries, so it may also say what differs there (a sign-in provider's smaller window); what it
// does not say falls through to the model's own entry. A new preset adds its list here.
import type { ModelEntry } from "./model-entry.ts";

const listed = (provider: string, source: string, ids: readonly string[]): ModelEntry[] =>
  ids.map((id) => ({
    id,
    provider,
    match: new RegExp(`^${id.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`),
    source,
  }));

export const PRESET_LISTINGS: readonly ModelEntry[] = [
  ...listed("openai", "https://platform.openai.com/docs/models", [
    "gpt-5.1",
    "gpt-5",
    "gpt-5-mini",
    "gpt-5-nano",
    "gpt-4.1",
    "gpt-4.1-mini",
    "gpt-4o",
    "o3",
    "o4-mini",
  ]),
  ...listed("anthropic", "https://docs.claude.com/en/docs/about-claude/models/overview", [
    "claude-opus-4-5",
    "claude-sonnet-4-5",
    "claude-haiku-4-5",
    "claude-opus-4-1",
  ]),
  ...listed("openrouter", "https://openrouter.ai/models", [
    "anthropic/claude-sonnet-4.5",
    "anthropic/claude-opus-4.5",
    "openai/gpt-5",
    "openai/gpt-5-mini",
    "google/gemini-2.5-pro",
    "deepseek/deepseek-chat",
    "qwen/qwen3-coder",
    "moonshotai/kimi-k2",
  ]),
  ...listed("ollama", "https://ollama.com/library", ["qwen3", "qwen3-coder", "gpt-oss:20b", "llama3.1", "deepseek-r1"]),
  // The sign-in providers' plans (issue 43, docs/sign-in.md): the models Codex offers with a ChatGPT
  // plan, and those Copilot's plans include (premium requests aside), as of November 2025.
  ...listed("chatgpt", "https://developers.openai.com/codex/models", [
    "gpt-5.1-codex",
    "gpt-5.1-codex-mini",
    "gpt-5.1",
    "gpt-5-codex",
    "gpt-5",
  ]),
  ...listed("copilot", "https://docs.github.com/en/copilot/reference/ai-models/supported-models", [
    "gpt-4.1",
    "gpt-5-mini",
    "gpt-5",
    "claude-sonnet-4.5",
    "claude-haiku-4.5",
    "gemini-2.5-pro",
    "grok-code-fast-1",
  ]),
];

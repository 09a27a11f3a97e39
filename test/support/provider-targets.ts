// Every provider preset and documented compatible server as the built CLI reaches it on a strict
// fake (fake-llm/personas.ts): its flags, its key, and the tool-call ids its real service writes.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PERSONAS, type PersonaName } from "./fake-llm/personas.ts";
import type { FakeLLM, ReplySpec, ScriptStep } from "./fake-llm/server.ts";
import { type CliResult, cleanEnv, runCli, tempDir } from "./helpers.ts";

export interface Target {
  label: string;
  persona: PersonaName;
  /** The CLI's flags for this target on `fake`; a custom provider is written to config.json. */
  flags(fake: FakeLLM): string[];
  /** config.json `providers` entries the flags name (a compatible server of its own name). */
  providers?(fake: FakeLLM): Record<string, unknown>;
  /** The id of the n-th tool call, as this service writes ids (Mistral: 9 alphanumerics). */
  id(n: number): string;
  /** Whether the fake's reply carries reasoning (the model thinks, and `--thinking` asks it to). */
  thinks: boolean;
}

const custom = (name: string, model: string) => ({
  flags: () => ["--provider", name, "--model", model, "--thinking", "high"],
  providers: (fake: FakeLLM) => ({ [name]: { api: "chat", baseUrl: fake.baseUrl } }),
});

export const TARGETS: Record<string, Target> = {
  openai: {
    label: "OpenAI chat (gpt-5-mini)",
    persona: "openai",
    flags: (fake) => ["--provider", "openai", "--base-url", fake.baseUrl, "--model", "gpt-5-mini", "--thinking", "low"],
    id: (n) => `call_${"x".repeat(20)}${n}`,
    thinks: false,
  },
  responses: {
    label: "OpenAI Responses (gpt-5-mini)",
    persona: "openai",
    flags: (fake) => [
      "--provider",
      "openai",
      "--api",
      "responses",
      "--base-url",
      fake.baseUrl,
      "--model",
      "gpt-5-mini",
      "--thinking",
      "low",
    ],
    id: (n) => `call_r${n}`,
    thinks: true,
  },
  anthropic: {
    label: "Anthropic (claude-sonnet-4-5)",
    persona: "anthropic",
    flags: (fake) => [
      "--provider",
      "anthropic",
      "--base-url",
      fake.url,
      "--model",
      "claude-sonnet-4-5",
      "--thinking",
      "low",
    ],
    id: (n) => `toolu_0${n}ABC`,
    thinks: true,
  },
  // An Anthropic-compatible endpoint of another vendor: its thinking is signed by its own server.
  minimax: {
    label: "MiniMax's Anthropic-compatible endpoint (MiniMax-M2)",
    persona: "anthropic",
    flags: () => ["--provider", "minimax", "--model", "MiniMax-M2", "--thinking", "low"],
    providers: (fake) => ({ minimax: { api: "anthropic", baseUrl: fake.url } }),
    id: (n) => `call_function_${n}abc`,
    thinks: true,
  },
  deepseek: {
    label: "DeepSeek (deepseek-reasoner)",
    persona: "deepseek",
    ...custom("deepseek", "deepseek-reasoner"),
    id: (n) => `call_0${n}_ioIn7yN9p1ZOMNpDLwd4MgAF`,
    thinks: true,
  },
  kimi: {
    label: "Kimi (kimi-k2-thinking)",
    persona: "kimi",
    ...custom("kimi", "kimi-k2-thinking"),
    id: (n) => `functions.read_file:${n}`,
    thinks: true,
  },
  mistral: {
    label: "Mistral (magistral-medium-latest)",
    persona: "mistral",
    ...custom("mistral", "magistral-medium-latest"),
    id: (n) => `gSIMJiO${String(n).padStart(2, "0")}`,
    thinks: true,
  },
  groq: {
    label: "Groq (openai/gpt-oss-120b)",
    persona: "groq",
    ...custom("groq", "openai/gpt-oss-120b"),
    id: (n) => `tk85n1k4${n}`,
    thinks: true,
  },
  openrouter: {
    label: "OpenRouter (google/gemini-3-pro-preview)",
    persona: "openrouter",
    flags: (fake) => [
      "--provider",
      "openrouter",
      "--base-url",
      fake.baseUrl,
      "--model",
      "google/gemini-3-pro-preview",
      "--thinking",
      "high",
    ],
    id: (n) => `tool_read_file_${n}`,
    thinks: true,
  },
  "openrouter-kimi": {
    label: "Kimi K2.5 through OpenRouter",
    persona: "kimi",
    flags: (fake) => [
      "--provider",
      "openrouter",
      "--base-url",
      fake.baseUrl,
      "--model",
      "moonshotai/kimi-k2.5",
      "--thinking",
      "high",
    ],
    id: (n) => `functions.read_file:${n}`,
    thinks: true,
  },
  "gemini-openai": {
    label: "Gemini 3 via Google's OpenAI-compatible endpoint",
    persona: "gemini-openai",
    ...custom("google", "gemini-3-pro-preview"),
    id: () => "",
    thinks: true,
  },
  gemini: {
    label: "Gemini native (gemini-3-pro-preview)",
    persona: "gemini",
    flags: (fake) => [
      "--provider",
      "gemini",
      "--base-url",
      `${fake.url}/v1beta`,
      "--model",
      "gemini-3-pro-preview",
      "--thinking",
      "high",
    ],
    id: () => "",
    thinks: true,
  },
};

/** A reply of `target`: reasoning when it thinks, and the calls given. */
export function replyOf(target: Target, reply: ReplySpec): ScriptStep {
  return { reply: target.thinks ? { reasoning: `thinking about ${reply.text ?? "the files"}`, ...reply } : reply };
}

/** Three model calls: two reads at once, one more, then the answer. */
export function toolLoop(target: Target, answer: string, first = 1): ScriptStep[] {
  const read = (n: number, path: string) => ({ id: target.id(first + n), name: "read_file", arguments: { path } });
  return [
    replyOf(target, { toolCalls: [read(0, "a.txt"), read(1, "b.txt")] }),
    replyOf(target, { toolCalls: [read(2, "a.txt")] }),
    replyOf(target, { text: answer }),
  ];
}

/** A folder to work in, and a home for config.json and the sessions, shared by the runs of one test. */
export function workspace(): { cwd: string; env: NodeJS.ProcessEnv } {
  const cwd = tempDir();
  writeFileSync(join(cwd, "a.txt"), "alpha\n");
  writeFileSync(join(cwd, "b.txt"), "beta\n");
  return { cwd, env: cleanEnv({ GEMINI_API_KEY: "test-key", OPENROUTER_API_KEY: "test-key" }) };
}

/** Runs the CLI on `target`'s fake (made strict), with its custom provider in config.json. */
export async function runOn(
  target: Target,
  fake: FakeLLM,
  place: { cwd: string; env: NodeJS.ProcessEnv },
  args: string[],
  onSpawn?: (child: import("node:child_process").ChildProcess) => void,
): Promise<CliResult> {
  fake.persona ??= PERSONAS[target.persona]();
  if (target.providers)
    writeFileSync(
      join(place.env.HARNESS_HOME as string, "config.json"),
      JSON.stringify({ providers: target.providers(fake) }),
    );
  return runCli([...target.flags(fake), "-y", ...args], { cwd: place.cwd, env: place.env, onSpawn });
}

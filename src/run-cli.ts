// Wires configuration, provider, tools and a terminal mode together for one CLI invocation.
// Loaded lazily by cli.ts, so `--help` and `--version` never pay for it.
import { createInterface } from "node:readline";
import type { CliFlags } from "./cli.ts";
import { loadConfigFile } from "./config-file.ts";
import { ConfigError, NoProviderError, resolveProvider, stateDir } from "./config.ts";
import { acceptsLocalModel } from "./ui/local-offer.ts";
import { loadExtensions } from "./extensions.ts";
import { HookedAgent } from "./hooks/hooked-agent.ts";
import { buildSystemPrompt } from "./core/system-prompt.ts";
import { resolveContextWindow } from "./providers/context-window.ts";
import { createProvider } from "./providers/index.ts";
import { costOf, formatCost, formatUsageAndCost, pricesFor } from "./providers/pricing.ts";
import { DEFAULT_CONTEXT_WINDOW, lookupContextWindow } from "./providers/model-info.ts";
import type { Agent } from "./core/agent.ts";
import type { ProviderSettings } from "./providers/index.ts";
import type { StatusLineSources } from "./ui/status-line.ts";
import { codingTools } from "./tools/index.ts";
import { ChatSession, isSessionError, loadChatHistory, loadResumeTarget, providerChoiceFor, startRecorder } from "./run-session.ts";
import type { SessionData } from "./session/session-reader.ts";
import { redact } from "./core/redact.ts";
import { createApprover } from "./permissions/approver.ts";
import { PermissionSetupError, setupPermissions, type PermissionSetup } from "./permissions/setup-permissions.ts";
import { previewChange } from "./tools/preview-change.ts";
import { createTerminalAsk, type AskFn } from "./ui/approval.ts";
import { createLineReader, runChat } from "./ui/chat.ts";
import { paletteFor } from "./ui/colors.ts";
import { exitCodeFor, writeJsonEvent, type OutputFormat } from "./ui/headless-output.ts";
import { readStreamInput, type StreamInput } from "./ui/stream-input.ts";
import { TerminalRenderer } from "./ui/terminal-renderer.ts";
import { formatReplay } from "./ui/transcript-replay.ts";

export async function runCli(flags: CliFlags): Promise<number> {
  const { env, stdin, stdout, stderr } = process;
  const cwd = process.cwd();
  const colors = paletteFor(stderr, env);

  let prompt = flags.print ?? (flags.positionals.length > 0 ? flags.positionals.join(" ") : undefined);
  const isStreamInput = flags.input === "stream-json";
  const isChat = prompt === undefined && Boolean(stdin.isTTY) && !isStreamInput;
  if (prompt === undefined && !isChat && !isStreamInput) prompt = await readAll(stdin);
  if (!isChat && !isStreamInput && !prompt?.trim()) {
    stderr.write("harness: the prompt is empty (give -p, prompt words, or text on stdin)\n");
    return 2;
  }

  let resumed: SessionData | undefined;
  try {
    resumed = loadResumeTarget(flags, env, cwd);
  } catch (error) {
    if (!isSessionError(error)) throw error;
    stderr.write(`harness: ${error.message}\n`);
    return 2;
  }
  for (const notice of resumed?.notices ?? []) stderr.write(`harness: ${notice}\n`);

  let settings;
  let resolveSettings: (session: SessionData | undefined) => ProviderSettings;
  try {
    const limits = { maxTokens: optionalNumber(flags["max-tokens"]), thinkingBudget: optionalNumber(flags.thinking) };
    const choice = { provider: flags.provider, model: flags.model, baseUrl: flags["base-url"], ...limits };
    const config = loadConfigFile(env);
    // A resumed session's provider and model are the defaults; flags and environment still win.
    resolveSettings = (session: SessionData | undefined) => resolveProvider(providerChoiceFor(choice, env, session), env, config);
    const offer = { resolve: () => resolveSettings(resumed), isNoProvider: (e: unknown) => e instanceof NoProviderError, isTerminal: Boolean(stdin.isTTY && stderr.isTTY) };
    if (await acceptsLocalModel({ ...offer, ask: (question) => askOnce(question, new AbortController().signal), write: (text) => stderr.write(text) })) choice.provider = "local";
    settings = resolveSettings(resumed);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    stderr.write(`harness: ${error.message}\n`);
    return error.isUsage ? 2 : 1;
  }
  let permissions: PermissionSetup;
  try {
    const permissionFlags = { approve: flags.yes ? "all" : (flags.approve as "ask" | "edits" | "all" | undefined), sandbox: flags.sandbox as "on" | "off" | undefined, allowNetwork: flags["allow-network"] };
    permissions = setupPermissions(permissionFlags, { cwd, env, harnessHome: stateDir(env) });
  } catch (error) {
    if (!(error instanceof PermissionSetupError)) throw error;
    stderr.write(`harness: ${error.message}\n`);
    return error.exitCode;
  }
  for (const warning of permissions.warnings) stderr.write(`harness: warning: ${warning}\n`);
  const approverFor = (ask: AskFn | undefined) =>
    createApprover({ policy: permissions.policy, cwd, ask: ask && createTerminalAsk({ ask, colors, columns: stderr.columns || 80 }), preview: (request) => previewChange(request, cwd) });
  const provider = await createProvider(settings);
  const windowOverride = flags["context-window"] ?? env.HARNESS_CONTEXT_WINDOW;
  if (windowOverride !== undefined && !/^[1-9]\d*$/.test(windowOverride)) {
    stderr.write("harness: HARNESS_CONTEXT_WINDOW takes a number of tokens\n");
    return 2;
  }
  // Started now, awaited below: a local server may be probed for its window (context-window.ts).
  // A local model knows its own window (loading it, which its first call would do anyway).
  const contextWindow = windowOverride
    ? Promise.resolve(Number(windowOverride))
    : "contextWindow" in provider && typeof provider.contextWindow === "function"
      ? (provider.contextWindow as () => Promise<number>)().catch(() => resolveContextWindow(settings))
      : resolveContextWindow(settings);
  // Hooks and MCP servers' tools; servers start now, in parallel, since the first request lists their tools.
  const extensions = await loadExtensions({ cwd, env, warn: (message) => stderr.write(`harness: ${message}\n`) });
  const tools = [...codingTools, ...extensions.tools];
  const system = buildSystemPrompt(
    { cwd, platform: `${process.platform} ${process.arch}`, shell: "bash", date: new Date().toISOString().slice(0, 10) },
    tools.map((tool) => tool.name),
  );
  const recorder = startRecorder(env, cwd, settings, resumed);
  const agentOptions = {
    sessionId: recorder.id,
    spillDir: recorder.writer.spillDir,
    messages: resumed?.messages,
    provider,
    tools,
    system,
    cwd,
    maxTurns: flags["max-turns"] ? Number(flags["max-turns"]) : undefined,
    maxTokens: settings.maxTokens,
    retry: retryPolicyFrom(env),
    context: { window: await contextWindow },
    env: permissions.env,
    wrapCommand: permissions.wrapCommand,
  };

  if (isChat) {
    const reader = createLineReader({ stdin, stdout, env, cwd, history: loadChatHistory(env) });
    const approve = approverFor((question, signal) => reader.ask(question, signal));
    const chatAgent = new HookedAgent({ ...agentOptions, approve, takeQueuedMessages: () => reader.takeQueuedMessages?.() ?? [] }, extensions.hooks);
    await extensions.hooks.sessionStart(flags.continue || flags.resume ? "resume" : "startup");
    const chat = new ChatSession({ agent: chatAgent, recorder, settings, resolveSettings, env, cwd, stderr, colors, secrets: permissions.secrets });
    if (resumed) stderr.write(formatReplay(resumed.messages, colors));
    try {
      return await runChat({ agent: chatAgent, stdin, stdout, stderr, env, colors, status: statusSources(chatAgent, settings), ...chat.hooks() }, reader);
    } finally {
      chat.close();
      await extensions.close();
    }
  }

  const format = (flags.output ?? "text") as OutputFormat;
  const renderer = format === "text" ? new TerminalRenderer({ stdout, stderr, env, replies: "final", showTrace: Boolean(stderr.isTTY) }) : undefined;
  // The spinner leaves the line before a question takes it.
  const ask: AskFn | undefined = stdin.isTTY ? (question, signal) => (renderer?.pause(), askOnce(question, signal)) : undefined;
  const approve = approverFor(ask);
  const agent = new HookedAgent({ ...agentOptions, approve }, extensions.hooks);

  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130); // a second Ctrl-C does not wait
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  let code = 0;
  // The core knows no prices: the CLI adds `cost` to the final event (absent when the model's price is unknown).
  const priced = pricesFor(settings.model, settings.prices);
  await extensions.hooks.sessionStart(flags.continue || flags.resume ? "resume" : "startup");
  // One prompt, or with --input stream-json one run per stdin line, until EOF or a run that did not finish.
  const inputs: AsyncIterable<StreamInput> | Iterable<StreamInput> = isStreamInput ? readStreamInput(stdin) : [{ text: prompt as string }];
  for await (const input of inputs) {
    if ("error" in input) {
      stderr.write(`harness: ${input.error}\n`);
      code = 2;
      break;
    }
    for await (const loopEvent of agent.prompt(input.text, controller.signal)) {
      // Keys never reach the session file, logs or JSON output (the contract); the model's own copy is untouched.
      const redacted = redact(loopEvent, permissions.secrets);
      recorder.record(redacted);
      const event = redacted.type === "done" && priced.isKnown ? { ...redacted, cost: costOf(redacted.usage, priced.prices) } : redacted;
      if (renderer) renderer.handle(event);
      else writeJsonEvent(format as Exclude<OutputFormat, "text">, event, stdout);
      if (event.type === "done") {
        code = exitCodeFor(event);
        if (!renderer && event.error) stderr.write(`harness: ${event.error}\n`);
        // The one summary (and the one unknown-price warning) of the run, for the person watching.
        if (stderr.isTTY && event.turns > 0) stderr.write(`${colors.dim(formatUsageAndCost(event.usage, settings.model, settings.prices))}\n`);
      }
    }
    if (code !== 0) break;
  }
  process.off("SIGINT", onSigint);
  recorder.close();
  await extensions.close();
  return code;
}

/** The chat's status line: the window compaction uses (else the table's), configured or listed prices. */
function statusSources(agent: Agent, settings: ProviderSettings): StatusLineSources {
  const isConfigured = (model: string) => model === settings.model;
  return {
    contextWindow: (model) => agent.options.context?.window ?? (isConfigured(model) ? settings.contextWindow : undefined) ?? lookupContextWindow(model) ?? DEFAULT_CONTEXT_WINDOW,
    formatCost: (usage, model) => {
      const priced = pricesFor(model, isConfigured(model) ? settings.prices : undefined);
      return priced.isKnown ? formatCost(costOf(usage, priced.prices)) : undefined;
    },
  };
}

function optionalNumber(flag: string | undefined): number | undefined {
  return flag === undefined ? undefined : Number(flag);
}

/** Test and CI hook: HARNESS_RETRY_BASE_MS shortens the backoff between retries. */
function retryPolicyFrom(env: NodeJS.ProcessEnv) {
  const base = Number(env.HARNESS_RETRY_BASE_MS);
  return Number.isFinite(base) && base >= 0 && env.HARNESS_RETRY_BASE_MS ? { maxRetries: 4, baseDelayMs: base } : undefined;
}

async function readAll(stream: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** One question on the terminal during a one-shot run; the line editor lives only that long. */
function askOnce(question: string, signal: AbortSignal): Promise<string | undefined> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    let answered = false;
    rl.on("SIGINT", () => process.emit("SIGINT"));
    rl.on("close", () => {
      if (!answered) resolve(undefined);
    });
    rl.question(question, { signal }, (line) => {
      answered = true;
      rl.close();
      resolve(line);
    });
  });
}

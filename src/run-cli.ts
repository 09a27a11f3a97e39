// Wires configuration, provider, tools and a terminal mode together for one CLI invocation.
// Loaded lazily by cli.ts, so `--help` and `--version` never pay for it.
import { createInterface } from "node:readline";
import type { CliFlags } from "./cli.ts";
import { ConfigError, resolveProvider } from "./config.ts";
import { Agent } from "./core/agent.ts";
import { buildSystemPrompt } from "./core/system-prompt.ts";
import { createProvider } from "./providers/index.ts";
import { codingTools } from "./tools/index.ts";
import { createTerminalApprover, type AskFn } from "./ui/approval.ts";
import { createLineReader, runChat } from "./ui/chat.ts";
import { paletteFor } from "./ui/colors.ts";
import { exitCodeFor, writeJsonEvent, type OutputFormat } from "./ui/headless-output.ts";
import { TerminalRenderer } from "./ui/terminal-renderer.ts";

export async function runCli(flags: CliFlags): Promise<number> {
  const { env, stdin, stdout, stderr } = process;
  const cwd = process.cwd();
  const colors = paletteFor(stderr, env);

  let prompt = flags.print ?? (flags.positionals.length > 0 ? flags.positionals.join(" ") : undefined);
  const isChat = prompt === undefined && Boolean(stdin.isTTY);
  if (prompt === undefined && !isChat) prompt = await readAll(stdin);
  if (!isChat && !prompt?.trim()) {
    stderr.write("harness: the prompt is empty (give -p, prompt words, or text on stdin)\n");
    return 2;
  }

  let settings;
  try {
    settings = resolveProvider({ provider: flags.provider, model: flags.model, baseUrl: flags["base-url"] }, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    stderr.write(`harness: ${error.message}\n`);
    return error.message.startsWith("unknown provider") ? 2 : 1;
  }
  const provider = await createProvider(settings);
  const system = buildSystemPrompt(
    { cwd, platform: `${process.platform} ${process.arch}`, shell: "bash", date: new Date().toISOString().slice(0, 10) },
    codingTools.map((tool) => tool.name),
  );
  const agentOptions = {
    provider,
    tools: codingTools,
    system,
    cwd,
    maxTurns: flags["max-turns"] ? Number(flags["max-turns"]) : undefined,
    retry: retryPolicyFrom(env),
  };

  if (isChat) {
    const reader = createLineReader({ stdin, stdout });
    const approve = createTerminalApprover({ approveAll: Boolean(flags.yes), ask: (question, signal) => reader.ask(question, signal), colors });
    return runChat({ agent: new Agent({ ...agentOptions, approve }), stdin, stdout, stderr, env, colors }, reader);
  }

  const ask: AskFn | undefined = stdin.isTTY ? (question, signal) => askOnce(question, signal) : undefined;
  const approve = createTerminalApprover({ approveAll: Boolean(flags.yes), ask, colors });
  const agent = new Agent({ ...agentOptions, approve });
  const format = (flags.output ?? "text") as OutputFormat;
  const renderer = format === "text" ? new TerminalRenderer({ stdout, stderr, env, replies: "final", showTrace: Boolean(stderr.isTTY) }) : undefined;

  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130); // a second Ctrl-C does not wait
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  let code = 1;
  for await (const event of agent.prompt(prompt as string, controller.signal)) {
    if (renderer) renderer.handle(event);
    else writeJsonEvent(format as Exclude<OutputFormat, "text">, event, stdout);
    if (event.type === "done") {
      code = exitCodeFor(event);
      if (!renderer && event.error) stderr.write(`harness: ${event.error}\n`);
    }
  }
  process.off("SIGINT", onSigint);
  return code;
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

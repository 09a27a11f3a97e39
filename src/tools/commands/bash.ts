import { z } from "zod";
import { openSpillFile, spillDirOf } from "../../core/output-spill.ts";
import { defineTool, type WrapCommand } from "../../core/tool.ts";
import { startInBackground } from "./background-jobs.ts";
import { BoundedCapture, type CapturedOutput, KEEP_BYTES, outputForModel, type SpillFile } from "./bounded-capture.ts";
import { exitStatus, PIPE_DRAIN_MS, runHosted } from "./command-host.ts";
import { LiveTail } from "./live-tail.ts";

/** Default per-command time limit; the model may ask for more, up to the cap. */
export const BASH_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;

/** Keeps pagers, prompts, colours and progress bars out of captured output. */
const QUIET_ENV: Record<string, string> = {
  PAGER: "cat",
  GIT_PAGER: "cat",
  MANPAGER: "cat",
  SYSTEMD_PAGER: "",
  GIT_TERMINAL_PROMPT: "0",
  DEBIAN_FRONTEND: "noninteractive",
  TERM: "dumb",
  NO_COLOR: "1",
  PIP_PROGRESS_BAR: "off",
  npm_config_progress: "false",
  npm_config_fund: "false",
};

export const bash = defineTool({
  name: "bash",
  description:
    "Run a bash command in the working directory. No stdin. Returns stdout+stderr and the exit code; long output is cut in the middle.",
  kind: "execute",
  input: z.object({
    command: z.string().describe("The command"),
    timeout: z
      .number()
      .int()
      .positive()
      .max(BASH_MAX_TIMEOUT_MS / 1000)
      .optional()
      .describe(`Seconds before it is killed (default ${BASH_TIMEOUT_MS / 1000}, max ${BASH_MAX_TIMEOUT_MS / 1000})`),
    background: z.boolean().optional().describe("For servers and watchers: returns an id and the first output at once"),
  }),
  describe: (input) => `bash${input.background ? " (background)" : ""}> ${input.command}`,
  // No files: the sandbox bounds what a command touches.
  effects: (input) => ({ command: input.command }),
  async run(input, context) {
    const { cwd, signal, env, wrapCommand } = context;
    const quietEnv = { ...(env ?? process.env), ...QUIET_ENV };
    if (input.background) return startInBackground(input.command, { ...context, env: quietEnv });
    const timeoutMs = Math.min((input.timeout ?? BASH_TIMEOUT_MS / 1000) * 1000, BASH_MAX_TIMEOUT_MS);
    const openSpill = () => openSpillFile(spillDirOf(context), context.callId);
    const { emit, callId } = context;
    // The person watching sees the last lines as they come (tool_output); the model gets the result.
    const live =
      emit && callId
        ? new LiveTail((lines, bytes) => emit({ type: "tool_output", id: callId, lines, bytes }), context.secrets)
        : undefined;
    const since = new Date().toISOString();
    const result = await runCommand(input.command, {
      cwd,
      env: quietEnv,
      timeoutMs,
      signal,
      openSpill,
      wrapCommand,
      secrets: context.secrets,
      live,
    });
    const output = outputForModel(result, openSpill, context.secrets);
    // Refused connections next to the command that met them (docs/network.md), for the model and the trace.
    const notes = [...result.notes, ...(context.network?.refusalsOf?.(input.command, since) ?? [])];
    const status = notes.map((note) => `[${note}]\n`).join("") + statusOf(result, timeoutMs);
    const isError = result.timedOut || result.interrupted || result.exitCode !== 0;
    const content = output ? `${output}\n${status}` : status;
    return { content, isError, summary: status, ...(result.stopsRun ? { stopsRun: result.stopsRun } : {}) };
  },
});

/** The last line of a result: how the command ended. */
function statusOf(result: CommandResult, timeoutMs: number): string {
  if (result.timedOut) return `[timed out after ${timeoutMs / 1000}s; the process tree was killed]`;
  if (result.interrupted) return "[interrupted by the user; the process tree was killed]";
  return exitStatus(result.exitCode, result.signal);
}

interface CommandResult extends CapturedOutput {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  interrupted: boolean;
  /** What happened to the command helper, when the model should know (see command-host.ts). */
  notes: string[];
  /** The command helper could not start (CommandListener.lost): the run stops with this. */
  stopsRun?: string;
}

/**
 * Runs `bash -c` in its own process group, through the command helper (command-host.ts), so a
 * timeout or Ctrl-C kills everything it started. With `openSpill`, output past MAX_OUTPUT_BYTES
 * is also streamed to that file, whole. With `wrapCommand` the helper runs in the sandbox.
 */
export function runCommand(
  command: string,
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    timeoutMs: number;
    signal: AbortSignal;
    openSpill?: () => SpillFile;
    wrapCommand?: WrapCommand;
    secrets?: readonly string[];
    /** Gets the output too, as it comes, for the live view; stopped when the command ends. */
    live?: LiveTail;
  },
): Promise<CommandResult> {
  const { cwd, env, timeoutMs, signal, openSpill, wrapCommand } = options;
  return new Promise((resolve) => {
    const captured = new BoundedCapture(KEEP_BYTES, openSpill, options.secrets);
    let timedOut = false;
    let settled = false;
    let drain: NodeJS.Timeout | undefined;
    let exit: { code: number | null; signal: string | null } = { code: null, signal: null };
    let stopsRun: string | undefined;

    const finish = (lost?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drain);
      signal.removeEventListener("abort", onAbort);
      running.forget();
      options.live?.stop();
      const notes = [running.notice, lost].filter((note) => note !== undefined);
      resolve({
        ...captured.finish(),
        exitCode: exit.code,
        signal: exit.signal,
        timedOut,
        interrupted: signal.aborted && !timedOut,
        notes,
        ...(stopsRun ? { stopsRun } : {}),
      });
    };
    const running = runHosted(
      command,
      { cwd, env, wrapCommand },
      {
        data: (chunk) => {
          captured.add(chunk);
          options.live?.add(chunk);
        },
        exited: (code, exitSignal) => {
          exit = { code, signal: exitSignal };
          // Background children may still hold the pipes open: give them a moment, then stop reading.
          drain = setTimeout(finish, PIPE_DRAIN_MS);
        },
        closed: () => finish(),
        lost: (reason, didStart, runStop) => {
          if (!didStart) exit = { code: 127, signal: null };
          stopsRun = runStop;
          finish(reason);
        },
      },
    );
    const timer = setTimeout(() => {
      timedOut = true;
      running.kill();
    }, timeoutMs);
    const onAbort = () => running.kill();
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

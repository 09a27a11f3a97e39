// The CLI's flags as session options (wiring/create-session.ts), and how the CLI's modes open a session
// with them: the one place a flag becomes a setting of the session.

import type { AskApprovalFn } from "../permissions/approver.ts";
import type { LockedSession } from "../session/session-lock.ts";
import { showControlChars } from "../shared/control-chars.ts";
import type { AnswerSchema } from "../tools/answer-schema.ts";
import { type AskFn, createTerminalAsk } from "../ui/approval.ts";
import type { Palette } from "../ui/colors.ts";
import { askOnce, askOnceUncancelled } from "../ui/headless/ask-once.ts";
import { acceptsLocalModel } from "../ui/local-offer.ts";
import { ShownDiffs } from "../ui/shown-diffs.ts";
import { BUILT_IN_COMMANDS } from "../ui/slash-commands.ts";
import { createTrustQuestion } from "../ui/trust-question.ts";
import { createSession, type Session, type SessionOptions, SessionSetupError } from "../wiring/create-session.ts";
import { keyVariableList } from "../wiring/defaults.ts";
import { recordWorktreeSession } from "../wiring/session-worktree.ts";
import type { CliFlags } from "./cli-args.ts";

/** The terminal a CLI run works on (stderr already redacting keys). */
export interface CliTerminal {
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  colors: Palette;
  /** What no `@path` attaches, whoever wrote the text (a prompt, a custom command): the sandbox's hidden list. */
  mentionSecrets: readonly string[];
}

/** What the chat and the headless mode share: the terminal, and how to open a session on it. */
export interface CliModeContext extends CliTerminal {
  /** A diff shown in an approval question is not drawn again after the write (the renderer gets the same list). */
  shownDiffs: ShownDiffs;
  /** Opens a session with the flags' options; a number is the exit code of a setup error, already reported. */
  open(
    more: Pick<SessionOptions, "approval" | "takeQueuedMessages" | "mcpStartupWaitMs"> &
      Partial<Pick<SessionOptions, "warn">>,
    where?: Pick<SessionOptions, "cwd" | "resumed">,
  ): Promise<Session | number>;
  /** The approval question on the terminal, asked with `ask`. */
  terminalAsk(ask: AskFn): { ask: AskApprovalFn };
  warn(message: string): void;
}

/** The session options the flags give, all but who approves (each mode decides that). */
export function sessionOptionsFor(
  flags: CliFlags,
  where: { cwd: string; resumed: LockedSession | undefined },
  terminal: CliTerminal,
  warn: (message: string) => void,
): Omit<SessionOptions, "approval"> {
  const { env, stdin, stderr, colors } = terminal;
  return {
    ...where,
    env,
    choice: {
      provider: flags.provider,
      model: flags.model,
      baseUrl: flags["base-url"],
      api: flags.api,
      maxTokens: flags["max-tokens"],
      thinking: flags.thinking,
      requestTimeout: flags["request-timeout"],
      idleTimeout: flags["idle-timeout"],
    },
    maxTurns: flags["max-turns"],
    fallbackModels: flags["fallback-model"],
    systemPrompt: { replace: flags["system-prompt"], append: flags["append-system-prompt"] },
    contextWindow: flags["context-window"],
    permissions: {
      approve: flags.yes ? "all" : flags.approve,
      sandbox: flags.sandbox,
      allowNetwork: flags["allow-network"],
    },
    reservedCommands: BUILT_IN_COMMANDS,
    offerLocalModel:
      stdin.isTTY && stderr.isTTY
        ? () =>
            acceptsLocalModel({
              ask: askOnceUncancelled,
              keyVariables: keyVariableList(),
              write: (text: string) => stderr.write(text),
            })
        : undefined,
    // At a terminal the folder-trust question is asked once, before the session starts; headless, --trust.
    trust: {
      flag: Boolean(flags.trust),
      ask: stdin.isTTY ? createTrustQuestion({ ask: askOnce, colors, columns: stderr.columns || 80 }) : undefined,
    },
    warn,
  };
}

/** The modes' shared context over the flags' session options. */
export function cliModeContext(
  flags: CliFlags,
  where: { cwd: string; resumed: LockedSession | undefined },
  terminal: CliTerminal,
  answerSchema?: AnswerSchema,
): CliModeContext {
  const warn = (message: string) => terminal.stderr.write(`harness: ${showControlChars(message)}\n`);
  const options = { ...sessionOptionsFor(flags, where, terminal, warn), answerSchema };
  const shownDiffs = new ShownDiffs();
  return {
    ...terminal,
    shownDiffs,
    warn,
    terminalAsk: (ask) => ({
      ask: createTerminalAsk({ ask, colors: terminal.colors, columns: terminal.stderr.columns || 80, shownDiffs }),
    }),
    async open(more, place = where) {
      try {
        const session = await createSession({ ...options, ...place, ...more });
        // `harness worktrees` names the session that worked in each worktree.
        if (flags.worktree !== undefined) recordWorktreeSession(place.cwd, session.id);
        return session;
      } catch (error) {
        if (!(error instanceof SessionSetupError)) throw error;
        // The rule in docs/usage.md: `harness:` leads a usage mistake (exit 2), `error:` a run that cannot go (exit 1).
        const { stderr, colors } = terminal;
        // The message may quote a settings file of the repository (a bad rule), which anyone may have written.
        const message = showControlChars(error.message);
        stderr.write(error.exitCode === 2 ? `harness: ${message}\n` : `${colors.red("error:")} ${message}\n`);
        return error.exitCode;
      }
    },
  };
}

// One session `harness serve` holds: its runs (one at a time), its event log, and the permission
// questions its policy puts, which every watching client sees and the first answer settles. The
// session itself (provider, tools, permissions, sandbox, recording) is the host's, built by
// createSession; this side only carries prompts in and events out, so it cannot widen what the
// session may do: an answer here counts as the person's at a terminal, no more.
import { randomUUID } from "node:crypto";
import type { AgentEvent, RunResult } from "../core/events.ts";
import type { ApprovalRequest } from "../core/run-tools.ts";
import { EventLog, type LogBounds } from "./event-log.ts";
import type { QuestionEvent, QuestionOutcome } from "./server-events.ts";

/** A refusal the client gets as an HTTP status and its message. */
export class ServeError extends Error {
  override name = "ServeError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** What the policy asks about one call (the same question a person at the terminal gets). */
interface ServedQuestion {
  why?: string;
  diff?: string;
  remember: string[];
  explicit?: true;
}

/** A client's answer as the policy takes it; `undefined`: the run was interrupted. */
type ServedAnswer = { type: "yes" } | { type: "no"; reason?: string } | { type: "always" };

export type AskClientsFn = (
  request: ApprovalRequest,
  question: ServedQuestion,
  signal: AbortSignal,
) => Promise<ServedAnswer | undefined>;

/** The host's session: made with createSession, its permissions and sandbox its own. */
export interface HostedServeSession {
  id: string;
  cwd: string;
  /** The approval mode it was built with (a client can narrow it at creation, never widen it). */
  approve: string;
  /** The worktree it works in, when the client asked for one (`cwd` is in it). */
  worktree?: { name: string; branch: string; path: string };
  model(): { provider: string; model: string };
  run(prompt: string, signal: AbortSignal): AsyncGenerator<AgentEvent, RunResult>;
  /** Notes for people (context window, thinking). */
  switchModel(model: string): Promise<string[]>;
  /** Undoes the last `turns` turns; the files it changed. */
  undo(turns: number): Promise<string[]>;
  close(): Promise<void>;
}

export interface SessionSummary {
  id: string;
  cwd: string;
  provider: string;
  model: string;
  approve: string;
  /** The worktree and branch it works on, when it was made in one. */
  worktree?: { name: string; branch: string; path: string };
  running: boolean;
  /** Questions waiting for an answer, by id. */
  questions: string[];
  lastEventId: number;
}

/** The running prompt: its abort switch, whether its `done` came, and its end (snapshot taken). */
interface Turn {
  stop: AbortController;
  isDone: boolean;
  finished: Promise<void>;
}

interface PendingQuestion {
  settle(answer: ServedAnswer | undefined): void;
  /** "Always" only where the policy named what it would add (never for an explicit question). */
  offersAlways: boolean;
}

export class ServedSession {
  readonly log: EventLog;
  private turn: Turn | undefined;
  private readonly questions = new Map<string, PendingQuestion>();
  /** Questions settled already, so a late answer is told so (ids only: a few bytes each). */
  private readonly settled = new Set<string>();
  private hostedSession: HostedServeSession | undefined;

  constructor(bounds?: LogBounds) {
    // Ids start above any an earlier run of the server gave (its time, in thousandths of a
    // millisecond, at most a thousand events a millisecond), so a client reconnecting after a
    // restart asks for an id this log never gave and is told what it missed, not left waiting.
    this.log = new EventLog(bounds, Date.now() * 1000 + 1);
  }

  /** Set once the host has built it (the asker exists before the session it serves). */
  set hosted(session: HostedServeSession) {
    this.hostedSession = session;
  }

  get hosted(): HostedServeSession {
    if (!this.hostedSession) throw new ServeError(503, "the session is still starting");
    return this.hostedSession;
  }

  get isRunning(): boolean {
    return this.turn !== undefined && !this.turn.isDone;
  }

  summary(): SessionSummary {
    const { provider, model } = this.hosted.model();
    return {
      id: this.hosted.id,
      cwd: this.hosted.cwd,
      provider,
      model,
      approve: this.hosted.approve,
      ...(this.hosted.worktree ? { worktree: this.hosted.worktree } : {}),
      running: this.isRunning,
      questions: [...this.questions.keys()],
      lastEventId: this.log.lastId,
    };
  }

  /**
   * Starts a run of `text`; its events go to the log. One at a time: a second is refused while
   * one runs, but one sent after the run's `done` waits for the run to wind up (its snapshot).
   */
  async prompt(text: string): Promise<void> {
    if (this.turn?.isDone) await this.turn.finished;
    if (this.turn) throw new ServeError(409, "a prompt is already running in this session; interrupt it or wait");
    const turn: Turn = { stop: new AbortController(), isDone: false, finished: Promise.resolve() };
    this.turn = turn;
    turn.finished = this.pump(text, turn);
  }

  private async pump(text: string, turn: Turn): Promise<void> {
    try {
      const run = this.hosted.run(text, turn.stop.signal);
      for (let step = await run.next(); !step.done; step = await run.next()) {
        if (step.value.type === "done") turn.isDone = true;
        this.log.append(step.value);
      }
    } catch (error) {
      this.log.append({ type: "server_error", error: error instanceof Error ? error.message : String(error) });
    } finally {
      this.turn = undefined;
    }
  }

  /** Interrupts the running prompt; false when none runs. */
  interrupt(): boolean {
    if (!this.turn || this.turn.isDone) return false;
    this.turn.stop.abort();
    return true;
  }

  /** The first answer to a question settles it; a later one is refused (409), as is an unknown id (404). */
  answer(questionId: string, answer: ServedAnswer): void {
    const pending = this.questions.get(questionId);
    if (!pending) {
      if (this.settled.has(questionId)) throw new ServeError(409, "this question was answered already");
      throw new ServeError(404, "no such question in this session");
    }
    if (answer.type === "always" && !pending.offersAlways)
      throw new ServeError(400, '"always" was not offered for this question (allow it once, or deny it)');
    pending.settle(answer);
  }

  /** The session's asker: the question goes to every client, the first answer comes back. */
  readonly ask: AskClientsFn = (request, question, signal) =>
    new Promise((resolve) => {
      const questionId = randomUUID();
      const settle = (answer: ServedAnswer | undefined) => {
        if (!this.questions.delete(questionId)) return;
        this.settled.add(questionId);
        signal.removeEventListener("abort", onAbort);
        const outcome: QuestionOutcome = answer ? answer.type : "cancelled";
        this.log.append({ type: "question_answered", questionId, answer: outcome });
        resolve(answer);
      };
      const onAbort = () => settle(undefined);
      this.questions.set(questionId, {
        settle,
        offersAlways: question.remember.length > 0 && !question.explicit,
      });
      const event: QuestionEvent = {
        type: "question",
        questionId,
        callId: request.call.id,
        tool: request.tool.name,
        summary: request.summary,
        remember: question.remember,
        ...(question.why ? { why: question.why } : {}),
        ...(question.diff ? { diff: question.diff } : {}),
        ...(question.explicit ? { explicit: true as const } : {}),
      };
      this.log.append(event);
      if (signal.aborted) settle(undefined);
      else signal.addEventListener("abort", onAbort, { once: true });
    });

  async switchModel(model: string): Promise<void> {
    await this.whenIdle("switch the model");
    const notes = await this.hosted.switchModel(model);
    const now = this.hosted.model();
    this.log.append({ type: "model_changed", provider: now.provider, model: now.model, notes });
  }

  async undo(turns: number): Promise<void> {
    await this.whenIdle("undo");
    const files = await this.hosted.undo(turns);
    this.log.append({ type: "undone", turns, files });
  }

  private async whenIdle(what: string): Promise<void> {
    if (this.turn?.isDone) await this.turn.finished;
    if (this.turn) throw new ServeError(409, `cannot ${what} while a prompt runs; interrupt it or wait`);
  }

  async close(): Promise<void> {
    this.turn?.stop.abort();
    await this.turn?.finished;
    await this.hostedSession?.close();
  }
}

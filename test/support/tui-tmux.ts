// Drives the built CLI inside a real terminal: a detached tmux session on its own socket.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { FakeLLM } from "./fake-llm/server.ts";
import { CLI, cleanEnv, fakeFlags, runCli, tempDir } from "./helpers.ts";
import { onTestEnd } from "./teardown.ts";

/** How long a screen may take to show what a test waits for before the test fails with the screen. */
const WAIT_MS = 20_000;
const POLL_MS = 100;
/** A bound on one tmux command (they answer at once; a wedged server must not hang the test). */
const TMUX_COMMAND_MS = 10_000;

export interface TerminalOptions {
  args: string[];
  cwd: string;
  /** Variables for the harness; TERM is set from here too (tmux would set its own). */
  env: Record<string, string>;
  columns?: number;
  rows?: number;
  /** A command the harness runs under (`setpriv --reuid=nobody ...`), given the rest of the line last. */
  wrap?: string[];
}

let sessions = 0;

/** One harness running in its own tmux server, killed when the test ends (tests that use it skip with `needs("tmux")`). */
export class TmuxTerminal {
  private constructor(
    private readonly socket: string,
    private readonly socketPath: string,
  ) {}

  static start(options: TerminalOptions): TmuxTerminal {
    const socket = `harness-tui-${process.pid}-${++sessions}`;
    const assignments = Object.entries(options.env).map(([key, value]) => shellQuote(`${key}=${value}`));
    const unset = "NO_COLOR" in options.env ? "" : "-u NO_COLOR ";
    // After the harness exits the pane stays (sleep), so its last screen can still be read.
    const wrap = (options.wrap ?? []).map(shellQuote).join(" ");
    const command = `${wrap} env ${unset}${assignments.join(" ")} ${shellQuote(process.execPath)} ${shellQuote(CLI)} ${options.args.map(shellQuote).join(" ")}; echo "[exit $?]"; sleep 600`;
    const serverEnv = { ...process.env };
    delete serverEnv.NO_COLOR;
    execFileSync(
      "tmux",
      [
        "-L",
        socket,
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-x",
        String(options.columns ?? 100),
        "-y",
        String(options.rows ?? 40),
        "-c",
        options.cwd,
        command,
      ],
      { env: serverEnv },
    );
    const socketPath = execFileSync("tmux", ["-L", socket, "display-message", "-p", "#{socket_path}"], {
      encoding: "utf8",
    }).trim();
    const terminal = new TmuxTerminal(socket, socketPath);
    onTestEnd(() => terminal.kill());
    return terminal;
  }

  /** Keys by tmux name (`Enter`, `Escape`, `C-c`) or literal text with `{ literal: true }`. */
  send(keys: string[], options: { literal?: boolean } = {}): void {
    this.tmux(["send-keys", "-t", "0", ...(options.literal ? ["-l"] : []), ...keys]);
  }

  type(text: string): void {
    this.send([text], { literal: true });
  }

  resize(columns: number, rows = 40): void {
    this.tmux(["resize-window", "-x", String(columns), "-y", String(rows)]);
  }

  /** Pastes as a terminal does: bracketed when the program asked for it. */
  paste(text: string): void {
    this.tmux(["set-buffer", "--", text]);
    this.tmux(["paste-buffer", "-p", "-t", "0"]);
  }

  /** The screen and its scrollback; `withStyles` keeps the escape sequences of colours and attributes. */
  screen(withStyles = false): string {
    return this.tmux(["capture-pane", "-p", "-J", "-S", "-200", "-t", "0", ...(withStyles ? ["-e"] : [])]);
  }

  /** Where the terminal's cursor is: column and row from 0, as tmux placed it after what was drawn. */
  cursor(): { column: number; row: number } {
    const [column, row] = this.tmux(["display-message", "-p", "-t", "0", "#{cursor_x} #{cursor_y}"]).trim().split(" ");
    return { column: Number(column), row: Number(row) };
  }

  /**
   * Polls the screen until `pattern` shows; fails with the screen when it does not within `withinMs`
   * (a liveness bound: slow steps such as loading a native model pass a longer one).
   */
  async waitFor(pattern: RegExp, what = String(pattern), withinMs = WAIT_MS): Promise<string> {
    const deadline = Date.now() + withinMs;
    while (true) {
      const screen = this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`the terminal never showed ${what}; the screen was:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** Ends the tmux server; a second call (the test's own hook, then the teardown) does nothing. */
  kill(): void {
    if (this.killed) return;
    this.killed = true;
    try {
      this.tmux(["kill-server"]);
    } catch {
      // already gone
    }
    rmSync(this.socketPath, { force: true }); // tmux leaves the socket file behind
  }

  private killed = false;

  private tmux(args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8", timeout: TMUX_COMMAND_MS });
  }
}

/**
 * A one-shot run (`-y -p prompt`) in a new folder and home (`prepare` fills the folder first),
 * then `harness -r <its session>` in a terminal, as a person coming back to it.
 */
export async function resumeInTerminal(
  server: FakeLLM,
  prompt: string,
  prepare: (cwd: string) => void = () => {},
): Promise<TmuxTerminal> {
  const cwd = tempDir();
  const home = tempDir("harness-home-");
  prepare(cwd);
  const first = await runCli([...fakeFlags(server), "-y", "-p", prompt], {
    env: cleanEnv({ HARNESS_HOME: home }),
    cwd,
  });
  assert.equal(first.code, 0, first.stderr);
  const [file] = readdirSync(join(home, "sessions")).filter((name) => name.endsWith(".jsonl"));
  return TmuxTerminal.start({
    args: [...fakeFlags(server), "-r", file.slice(0, -".jsonl".length)],
    cwd,
    env: { TERM: "xterm-256color", HARNESS_HOME: home },
  });
}

function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A chat in a trusted folder at 160 columns (room for a whole question), waiting at its first prompt. */
export async function openTrustedChat(fake: FakeLLM, cwd: string, args: string[] = []): Promise<TmuxTerminal> {
  const terminal = TmuxTerminal.start({
    args: [...args, "--trust", ...fakeFlags(fake)],
    cwd,
    env: { ...(cleanEnv() as Record<string, string>), TERM: "xterm-256color" },
    columns: 160,
  });
  await terminal.waitFor(/> $/m, "the chat prompt");
  return terminal;
}

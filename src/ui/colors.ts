/** ANSI styles, or identity functions when colour is off (NO_COLOR, TERM=dumb, not a TTY). */
export interface Palette {
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  /** Foreground and background swapped: the changed characters inside a changed diff line. */
  inverse(text: string): string;
}

/**
 * Whether a stream gets escape sequences that move the cursor (the spinner, pinned panels, the
 * line editor): a TTY, without NO_COLOR, not TERM=dumb. FORCE_COLOR does not change this: a log
 * file or a CI page takes colours but not redraws.
 */
export function isColorOn(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== "dumb";
}

/**
 * Whether a stream gets colours. FORCE_COLOR as Node's own `tty.getColorDepth` reads it (and chalk):
 * empty, `1`, `2`, `3` or `true` turns colours on even when the stream is no TTY and wins over
 * NO_COLOR; any other value (`0`, `false`) turns them off. Unset: isColorOn.
 */
export function wantsColor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): boolean {
  const forced = env.FORCE_COLOR;
  if (forced !== undefined) return FORCE_COLOR_ON.has(forced);
  return isColorOn(stream, env);
}

const FORCE_COLOR_ON = new Set(["", "1", "2", "3", "true"]);

export function paletteFor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): Palette {
  const isOn = wantsColor(stream, env);
  const style = (open: number, close: number) => (text: string) => (isOn ? `\x1b[${open}m${text}\x1b[${close}m` : text);
  return {
    dim: style(2, 22),
    bold: style(1, 22),
    red: style(31, 39),
    green: style(32, 39),
    yellow: style(33, 39),
    cyan: style(36, 39),
    inverse: style(7, 27),
  };
}

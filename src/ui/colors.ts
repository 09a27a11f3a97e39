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

/** Whether a stream gets escape sequences: a TTY, without NO_COLOR, not TERM=dumb. */
export function isColorOn(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== "dumb";
}

export function paletteFor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): Palette {
  const isOn = isColorOn(stream, env);
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

// One question on the terminal outside the chat's line editor (a one-shot run's approval, the
// trust question, the resume pickers): a readline that lives only as long as the question.
import { createInterface } from "node:readline";

/** Asks on stderr, reads a line from stdin; undefined when stdin closes first. Ctrl-C is the process's SIGINT. */
export function askOnce(question: string, signal: AbortSignal): Promise<string | undefined> {
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

/** The same with no way to cancel it but closing stdin. */
export function askOnceUncancelled(question: string): Promise<string | undefined> {
  return askOnce(question, new AbortController().signal);
}

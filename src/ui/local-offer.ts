// A first run with no key and no provider, at a terminal: offer the local model rather than
// only an error. Headless runs get the error, which names `--provider local` among the choices.
// The session factory asks this only when no provider is configured (SessionOptions.offerLocalModel).

/** The terminal to ask on. */
export interface LocalOfferIo {
  ask: (question: string) => Promise<string | undefined>;
  /** The key variables that would choose a provider (`ANTHROPIC_API_KEY, ... or GEMINI_API_KEY`). */
  keyVariables: string;
  write: (text: string) => void;
}

const question = (keyVariables: string) =>
  `No API key is set (${keyVariables}).\n` +
  "Run a model on this computer instead? The default one (Qwen3 4B, about 2.5 GB) is downloaded once\n" +
  "into $HARNESS_HOME/models, then it works offline, with no key. [y/N] ";

/** True when the user chose `--provider local` here; false when they declined. */
export async function acceptsLocalModel(io: LocalOfferIo): Promise<boolean> {
  const answer = (await io.ask(question(io.keyVariables)))?.trim().toLowerCase();
  if (answer !== "y" && answer !== "yes") return false;
  io.write("harness: using --provider local (pass it next time, or set HARNESS_PROVIDER=local)\n");
  return true;
}

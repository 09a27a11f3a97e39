// `harness models`: the models the configured endpoint offers, one id per line on stdout.

import { parseArgs } from "node:util";
import { ProviderError } from "../../core/provider.ts";
import type { ProviderSettings } from "../../providers/index.ts";
import { LIST_TIMEOUT_MS, ModelListError } from "../../providers/list-models.ts";
import { howToAddModel } from "../../providers/local/local-download.ts";
import { presetModels } from "../../providers/model-catalogue.ts";
import { apiRecord } from "../../providers/wire-apis.ts";
import { configuredModels } from "../../settings/config-file.ts";
import { showControlChars } from "../../shared/control-chars.ts";
import { deadline } from "../../shared/helpers.ts";
import { loadConfigFile } from "../../wiring/config-file.ts";
import { ConfigError, PRESETS } from "../../wiring/defaults.ts";
import { resolveProvider } from "../../wiring/resolve-provider.ts";
import { knownModelLines, oneModelLines } from "./models-known.ts";

const HELP = `Usage: harness models [--provider <name>] [--base-url <url>]
       harness models --known [--model <id>]

Lists the models the endpoint offers (GET {base}/models, or /v1/models for Anthropic), one per line.
The provider, base URL and key are chosen as for a run: flags, environment, config.json, defaults.

--known lists what harness knows of each model instead, asking no server: the model catalogue's
entries (config.json's "models" first), each with its context window, output limit, thinking,
images, prices, aliases and source. With --model, every fact of that one model and where it came from.
`;

const OPTIONS = {
  provider: { type: "string" },
  model: { type: "string" },
  "base-url": { type: "string" },
  known: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

const ANY_MODEL = "(any)";
export async function run(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true }));
  } catch (error) {
    const { argvErrorMessage } = await import("../cli-args.ts");
    process.stderr.write(
      `harness models: ${argvErrorMessage(error, Object.keys(OPTIONS))}\nTry 'harness models --help'.\n`,
    );
    return 2;
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  try {
    if (values.known) {
      const config = loadConfigFile(process.env);
      const configured = configuredModels(config);
      const provider = values.provider ?? process.env.HARNESS_PROVIDER ?? config.provider ?? "";
      const lines = values.model ? oneModelLines(values.model, provider, configured) : knownModelLines(configured);
      process.stdout.write(`${lines.map((line) => showControlChars(line)).join("\n")}\n`);
      return 0;
    }
    // Listing needs no model; the placeholder keeps a custom provider without one from being an error.
    const choice = { provider: values.provider, model: values.model ?? ANY_MODEL, baseUrl: values["base-url"] };
    const settings = resolveProvider(choice, process.env, loadConfigFile(process.env));
    const cap = deadline(LIST_TIMEOUT_MS);
    // The ChatGPT plan's backend has no listing we can rely on: its models are the catalogue's.
    const ids = PRESETS[settings.name]?.catalogueListing
      ? presetModels(settings.name)
      : await apiRecord(settings.api)
          .listModels(settings, cap.signal)
          .finally(() => cap.clear());
    cap.clear();
    process.stdout.write(ids.length > 0 ? `${ids.join("\n")}\n` : "");
    if (ids.length === 0) process.stderr.write(`harness models: ${noModelsLine(settings)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigError || error instanceof ModelListError || error instanceof ProviderError))
      throw error;
    process.stderr.write(`harness models: ${showControlChars(error.message)}\n`);
    return error instanceof ConfigError && error.isUsage ? 2 : 1;
  }
}

/** What an empty listing means; for the local provider, how to add a model file. */
export function noModelsLine(settings: ProviderSettings): string {
  return settings.api === "local"
    ? `no local model downloaded yet: ${howToAddModel(settings.modelsDir ?? "the models folder")}`
    : `${settings.name} lists no models`;
}

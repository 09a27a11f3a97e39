// What the chat's `/model` lists: the models the provider offers, the one in use marked, or the
// ones harness knows when the endpoint cannot list them; then the models of the plans signed in
// to (`harness login`), switched to with `/model <plan>:<model>`. Out of chat-controls.ts, which held it.
import { LIST_TIMEOUT_MS, ModelListError } from "../providers/list-models.ts";
import { howToAddModel } from "../providers/local/local-download.ts";
import { presetModels } from "../providers/model-catalogue.ts";
import { SignInError } from "../providers/sign-in/credential-store.ts";
import { signInsHere } from "../providers/sign-in/sign-in-headers.ts";
import { apiRecord } from "../providers/wire-apis.ts";
import { deadline } from "../shared/helpers.ts";
import type { Session } from "../wiring/create-session.ts";
import { PRESETS, stateDir } from "../wiring/defaults.ts";
import { noModelsLine } from "./commands/models.ts";

/** Models /model lists (OpenRouter offers hundreds; `harness models` lists them all). */
const CHAT_LISTED_MODELS = 40;

/** `/model` without a name: one line each, `current` (`provider · model`) first. */
export async function listChatModels(
  settings: Session["settings"],
  current: string,
  env: NodeJS.ProcessEnv,
): Promise<string[]> {
  return [...(await providerModels(settings, current)), ...plansModels(settings.name, env)];
}

async function providerModels(settings: Session["settings"], current: string): Promise<string[]> {
  const mark = (ids: readonly string[]) => ids.map((id) => (id === settings.model ? `* ${id}` : `  ${id}`));
  const using = `using ${current}`;
  const cap = deadline(LIST_TIMEOUT_MS);
  try {
    // The ChatGPT plan's backend has no listing we can rely on: its models are the catalogue's.
    const ids = PRESETS[settings.name]?.catalogueListing
      ? presetModels(settings.name)
      : await apiRecord(settings.api).listModels(settings, cap.signal);
    if (ids.length === 0) return [using, noModelsLine(settings)];
    const more = ids.length - CHAT_LISTED_MODELS;
    return [
      `${using}; ${settings.name} offers (* in use):`,
      ...mark(ids.slice(0, CHAT_LISTED_MODELS)),
      ...(more > 0 ? [`  … and ${more} more (harness models lists them all)`] : []),
      settings.api === "local"
        ? `switch with /model <name>; to add one, ${howToAddModel(settings.modelsDir ?? "")}`
        : "switch with /model <name>",
    ];
  } catch (error) {
    if (!(error instanceof ModelListError) && (error as Error | undefined)?.name !== "ProviderError") throw error;
    // The endpoint cannot say (no list endpoint, down, refused, a sign-in not usable): the models harness knows.
    const known = presetModels(settings.name);
    return [
      using,
      `cannot list ${settings.name}'s models: ${(error as Error).message}`,
      ...(known.length > 0
        ? [`models harness knows for ${settings.name} (not checked with the endpoint):`, ...mark(known)]
        : []),
      "switch with /model <name>",
    ];
  } finally {
    cap.clear();
  }
}

/**
 * The plans signed in to, other than the provider in use: the catalogue's models for each (no
 * request: Copilot's own listing is `harness models --provider copilot`), as `/model` takes them.
 */
function plansModels(inUse: string, env: NodeJS.ProcessEnv): string[] {
  let plans;
  try {
    plans = signInsHere(stateDir(env), env).filter((plan) => plan.name !== inUse);
  } catch (error) {
    if (!(error instanceof SignInError)) throw error;
    return [`sign-ins not listed: ${error.message}`];
  }
  return plans.flatMap(({ name }) => [
    `signed in to ${name} (switch with /model ${name}:<model>; the conversation comes along):`,
    ...presetModels(name).map((id) => `  ${name}:${id}`),
  ]);
}

// What every provider is built from. Types only: the adapters import AdapterSettings (the same
// without `api`), and createProvider (create-provider.ts) lives apart, so no import runs in a circle.
import type { AdapterSettings } from "./adapter-settings.ts";
import type { ApiKind } from "./wire-apis.ts";

export type { ApiKind } from "./wire-apis.ts";

/** Everything needed to build a provider; config resolution fills it in. */
export interface ProviderSettings extends AdapterSettings {
  /** Which wire API's record (wire-apis.ts) builds the adapter, or `local` for the in-process model. */
  api: ApiKind;
  /** What resolving the settings chose that the user did not spell out (an alias's id, one key of several): said once at the start. */
  notices?: string[];
}

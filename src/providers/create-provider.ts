// Builds a provider from its settings: its API's record (wire-apis.ts) loads the adapter, and a
// wire API's goes behind the edge (edge.ts), which converts what goes to it. The adapters import
// their settings type from adapter-settings.ts and the record imports them, so no import runs in
// a circle.
import type { Provider } from "../core/provider.ts";
import { atTheEdge } from "./edge.ts";
import type { ProviderSettings } from "./index.ts";
import { apiRecord } from "./wire-apis.ts";

/** The provider for the settings' API; the local model runs in-process and takes the neutral messages as they are. */
export async function createProvider(settings: ProviderSettings): Promise<Provider> {
  const record = apiRecord(settings.api);
  const provider = await record.create(settings);
  return record.inProcess ? provider : atTheEdge(provider, settings);
}

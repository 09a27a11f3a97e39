/** Flags or variables that choose a provider (the same shape as config's ProviderChoice). */
export interface ProviderChoiceLike {
  provider?: string;
  model?: string;
  baseUrl?: string;
  /** The wire API (`--api`). */
  api?: string;
}

/**
 * The provider choice for a resumed session: flags, then the environment, then what the session
 * used last (its wire API too, so a session begun on `--api responses` goes on with it), then
 * config.json and built-in defaults. The stored values count only as a
 * group: once flags or the environment name another provider, the stored model and URL belong
 * to the wrong server and are dropped.
 */
export function resumeProviderChoice<Choice extends ProviderChoiceLike>(
  flags: Choice,
  env: NodeJS.ProcessEnv,
  stored: { provider: string; model: string; baseUrl?: string; api?: Choice["api"] },
): Choice {
  const provider = flags.provider ?? env.HARNESS_PROVIDER;
  if (provider !== undefined && provider !== stored.provider) return flags;
  return {
    ...flags,
    provider: stored.provider,
    model: flags.model ?? env.HARNESS_MODEL ?? stored.model,
    baseUrl: flags.baseUrl ?? env.HARNESS_BASE_URL ?? stored.baseUrl,
    api: flags.api ?? stored.api,
  };
}

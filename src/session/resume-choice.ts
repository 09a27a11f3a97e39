/** Flags or variables that choose a provider (the same shape as config's ProviderChoice). */
export interface ProviderChoiceLike {
  provider?: string;
  model?: string;
  baseUrl?: string;
}

/**
 * The provider choice for a resumed session: flags, then the environment, then what the session
 * used last, then built-in defaults (config fills those in). The stored values count only as a
 * group: once flags or the environment name another provider, the stored model and URL belong
 * to the wrong server and are dropped.
 */
export function resumeProviderChoice(
  flags: ProviderChoiceLike,
  env: NodeJS.ProcessEnv,
  stored: Required<Pick<ProviderChoiceLike, "provider" | "model">> & ProviderChoiceLike,
): ProviderChoiceLike {
  const provider = flags.provider ?? env.HARNESS_PROVIDER;
  if (provider !== undefined && provider !== stored.provider) return flags;
  return {
    ...flags,
    provider: stored.provider,
    model: flags.model ?? env.HARNESS_MODEL ?? stored.model,
    baseUrl: flags.baseUrl ?? env.HARNESS_BASE_URL ?? stored.baseUrl,
  };
}

// The credentials of a sign-in provider, at the moment a request leaves: read from the store,
// renewed first when they expire within the margin (under the store's lock, after reading the
// file again, so of two harness processes only one refreshes and the other takes its result),
// and turned into the request's headers. The tokens live here and in the store only: never in the
// provider's settings, the environment, argv or anything a session records.
import { ProviderError } from "../../core/provider.ts";
import { type HttpReply, HttpStatusError, postJson } from "../post-json.ts";
import { chatgptHeaders, chatgptNeedsRefresh, refreshChatGpt } from "./chatgpt-sign-in.ts";
import { copilotHeaders, copilotNeedsRefresh, exchangeCopilotToken } from "./copilot-sign-in.ts";
import {
  type CopilotCredential,
  type Credential,
  credentialFile,
  readCredential,
  readCredentials,
  SignInError,
  withCredentialLock,
  writeCredential,
} from "./credential-store.ts";
import { planLimitNotice } from "./plan-limits.ts";

/** The sign-in providers, by name. */
export const SIGN_IN_NAMES = ["chatgpt", "copilot"] as const;
export type SignInName = (typeof SIGN_IN_NAMES)[number];

export function isSignInName(name: string): name is SignInName {
  return (SIGN_IN_NAMES as readonly string[]).includes(name);
}

/** Whether a credential should be renewed before use. */
export function needsRenewal(credential: Credential): boolean {
  return credential.kind === "chatgpt" ? chatgptNeedsRefresh(credential) : copilotNeedsRefresh(credential);
}

/** A renewed credential (a refresh for ChatGPT, a new exchange for Copilot). */
export function renew(credential: Credential): Promise<Credential> {
  return credential.kind === "chatgpt" ? refreshChatGpt(credential) : exchangeCopilotToken(credential);
}

/**
 * A credential fit for use now: the stored one, or renewed and stored. Throws SignInError when
 * there is none or it cannot be renewed (the message names the command that fixes it).
 */
export async function usableCredential(home: string, name: SignInName, refused?: string): Promise<Credential> {
  const stored = readCredential(home, name);
  if (!stored && name === "copilot" && process.env[COPILOT_TOKEN_VARIABLE]) return carriedCopilot(refused);
  if (!stored || stored.kind !== name) throw new SignInError(`not signed in to ${name}: run harness login ${name}`);
  if (!needsRenewal(stored) && bearerOf(stored) !== refused) return stored;
  return withCredentialLock(home, async () => {
    // Another process may have renewed it while this one waited for the lock.
    const current = readCredential(home, name);
    if (!current || current.kind !== name) throw new SignInError(`not signed in to ${name}: run harness login ${name}`);
    if (!needsRenewal(current) && bearerOf(current) !== refused) return current;
    const renewed = await renew(current);
    writeCredential(home, name, renewed);
    return renewed;
  });
}

/**
 * The sign-ins this machine can use, each with where it is kept: the store, or (Copilot only, when
 * the store has none) the variable below. Throws SignInError for a store others may read.
 */
export function signInsHere(home: string, env: NodeJS.ProcessEnv = process.env): { name: SignInName; from: string }[] {
  const stored = readCredentials(home).signIns;
  return SIGN_IN_NAMES.flatMap((name) => {
    if (stored[name]?.kind === name) return [{ name, from: credentialFile(home) }];
    return name === "copilot" && env[COPILOT_TOKEN_VARIABLE] ? [{ name, from: `$${COPILOT_TOKEN_VARIABLE}` }] : [];
  });
}

/**
 * A Copilot sign-in carried to another machine (CI, a container): the GitHub token of a
 * `harness login copilot` made elsewhere, in this variable. Used only when this machine has no
 * sign-in of its own; its Copilot tokens are made from it and kept in memory, never written.
 * *Decision*: a variable for Copilot only. GitHub's token does not rotate, so every run can use
 * it; ChatGPT's refresh token rotates on each use (the next run would find it spent), so a
 * ChatGPT sign-in is carried as a copy of credentials.json instead (docs/sign-in.md).
 */
const COPILOT_TOKEN_VARIABLE = "HARNESS_COPILOT_GITHUB_TOKEN";
let carried: CopilotCredential | undefined;

async function carriedCopilot(refused: string | undefined): Promise<Credential> {
  const githubToken = process.env[COPILOT_TOKEN_VARIABLE] ?? "";
  if (!/^[\x21-\x7e]{8,16384}$/.test(githubToken))
    throw new SignInError(`${COPILOT_TOKEN_VARIABLE} does not hold a GitHub token; run harness login copilot`);
  const current: CopilotCredential = carried?.githubToken === githubToken ? carried : { kind: "copilot", githubToken };
  if (!needsRenewal(current) && current.copilotToken !== refused) return current;
  carried = await exchangeCopilotToken(current);
  return carried;
}

/** The token a credential puts on model requests. */
function bearerOf(credential: Credential): string | undefined {
  return credential.kind === "chatgpt" ? credential.accessToken : credential.copilotToken;
}

interface SignInSettings {
  signIn?: string;
  signInHome?: string;
  /** Where a notice for people goes (the run's warnings): a plan's limit nearing. */
  onWait?(notice: string): void;
}

/**
 * `postJson` with the sign-in's headers. A 401 means the service no longer takes the token
 * (it expired early, or was revoked while the run went on): the credential is renewed once (a
 * refresh, a new Copilot token; unless another process already did) and the request sent once
 * more. A second 401 is the run's error, as is a renewal the service refuses: never a loop.
 */
export async function signedPost(
  settings: SignInSettings,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  signal: AbortSignal,
): Promise<HttpReply> {
  const first = await signInHeaders(settings);
  try {
    return noticeLimits(settings, await postJson(url, { ...headers, ...first }, body, signal));
  } catch (error) {
    if (!(error instanceof HttpStatusError) || error.status !== 401 || !first.authorization) throw error;
    const refused = first.authorization.replace(/^Bearer /, "");
    return noticeLimits(
      settings,
      await postJson(url, { ...headers, ...(await signInHeaders(settings, refused)) }, body, signal),
    );
  }
}

/** Says once when a plan's rate-limit window nears its end (plan-limits.ts). */
function noticeLimits(settings: SignInSettings, reply: HttpReply): HttpReply {
  const notice = settings.signIn ? planLimitNotice(settings.signIn, reply.headers) : undefined;
  if (notice) settings.onWait?.(notice);
  return reply;
}

/** The request headers of a sign-in provider; a sign-in that cannot be used is an `auth` ProviderError (not retried). */
export async function signInHeaders(settings: SignInSettings, refused?: string): Promise<Record<string, string>> {
  const name = settings.signIn;
  if (!name || !isSignInName(name) || !settings.signInHome) return {};
  try {
    const credential = await usableCredential(settings.signInHome, name, refused);
    return credential.kind === "chatgpt" ? chatgptHeaders(credential) : copilotHeaders(credential);
  } catch (error) {
    if (error instanceof SignInError) throw new ProviderError("auth", error.message);
    throw error;
  }
}

// From flags, settings files and the machine to what a run needs: the policy, the command
// environment, the sandbox wrapper, and the secret values to redact.

import { realpathSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { assertNever } from "../core/messages.ts";
import type { WrapCommand } from "../core/tool.ts";
import { bwrapWrapper } from "../sandbox/bwrap.ts";
import { detectSandbox, type SandboxSupport } from "../sandbox/detect-sandbox.ts";
import { sandboxExecWrapper } from "../sandbox/macos-profile.ts";
import type { ProxyOptions } from "../sandbox/network-proxy.ts";
import { originText } from "../sandbox/relay-origin.ts";
import { ROOTFS_VARIABLE, rootfsFromEnv } from "../sandbox/rootfs-mounts.ts";
import type { RootFilesystem, SandboxPolicy } from "../sandbox/sandbox-policy.ts";
import { worktreeGitMounts } from "../sandbox/worktree-git-mounts.ts";
import { isInside } from "../shared/is-inside.ts";
import { realOrSame } from "../shared/real-path.ts";
import { secretValuesOf } from "../shared/redact.ts";
import { ApprovalModeSwitch } from "./approval-mode.ts";
import type { AskApprovalFn } from "./approver.ts";
import { filterCommandEnv } from "./command-env.ts";
import { homeCodePaths } from "./home-code-paths.ts";
import { networkQuestion } from "./network-question.ts";
import { effectiveNetwork } from "./network-settings.ts";
import { loadSettings, SettingsError } from "./permission-settings.ts";
import type { ApprovalMode, PermissionPolicy, SandboxState } from "./policy.ts";
import { PROTECTED_NAMES } from "./protected-paths.ts";
import { deniedReadPaths, type Rule } from "./rules.ts";
import { SandboxNetwork } from "./sandbox-network.ts";
import { SYSTEM_PATHS, secretPaths } from "./secret-paths.ts";

/** The command-line choices about permissions (already validated by cli.ts). */
export interface PermissionFlags {
  approve?: ApprovalMode;
  /** `on` requires the sandbox; `off` turns it off; absent: on where it works. */
  sandbox?: "on" | "off";
  allowNetwork?: boolean;
}

/** What a run gets. */
export interface PermissionSetup {
  policy: PermissionPolicy;
  /** The bash tool's environment: credentials removed. */
  env: Record<string, string>;
  /** Present when commands run sandboxed (with the workspace read-only while the mode is plan). */
  wrapCommand?: WrapCommand;
  /** The approval mode now: `policy.mode` is where it started; the approver and the sandbox read this. */
  approvalMode: ApprovalModeSwitch;
  /** Where recursive reads do not go: the secret paths, /proc and /sys (ToolContext.unwalked). */
  unwalked: string[];
  /** Values to redact wherever they would be written (the provider keys and other credentials in the environment). */
  secrets: string[];
  /** Lines for stderr: the sandbox is missing, or settings were ignored. */
  warnings: string[];
  /** The settings files read, the user's first (`/status`), and what in them was not taken, each a sentence (`/permissions`). */
  settingsFiles: string[];
  notTaken: string[];
  /** The project's allow rules, not in `policy` until the folder is trusted (withProjectRules). */
  projectAllow: Rule[];
  /** The project's `permissions.additionalDirectories` (real paths), likewise. */
  projectDirectories: string[];
  /** Folders the user's settings trust without asking (folder-trust.ts). */
  trustedFolders: string[];
  /** With the Linux sandbox: its network (off, on, or the allowlist and its proxy; sandbox-network.ts). */
  network?: SandboxNetwork;
}

/**
 * Permissions cannot be set up: a settings file is broken (exit 2, like a usage error), or
 * `--sandbox on` where no sandbox works (exit 1). The message says what to fix.
 */
export class PermissionSetupError extends Error {
  override name = "PermissionSetupError";

  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
  }
}

const ROOTFS_NEEDS_BWRAP = `${ROOTFS_VARIABLE} (a task environment's root filesystem) needs bubblewrap's sandbox (Linux, bwrap installed, not --sandbox off)`;

/** The root filesystem a batch task's environment names (HARNESS_SANDBOX_ROOTFS), checked. */
function rootfsOf(env: Record<string, string | undefined>): { rootfs?: RootFilesystem } {
  try {
    const rootfs = rootfsFromEnv(env);
    return rootfs ? { rootfs } : {};
  } catch (error) {
    throw new PermissionSetupError((error as Error).message, 2);
  }
}

/** Builds a run's permissions; throws PermissionSetupError. */
export function setupPermissions(
  flags: PermissionFlags,
  where: {
    cwd: string;
    env: Record<string, string | undefined>;
    harnessHome: string;
    platform?: NodeJS.Platform;
    detect?: () => SandboxSupport;
    /** For tests only: how the proxy resolves names, and the fake internet's addresses (ProxyOptions). */
    networkTesting?: Pick<ProxyOptions, "resolve" | "fakeInternet">;
    /** Where a refused connection is named as it happens (stderr, or the chat's notices). */
    warn?: (message: string) => void;
    /** The person, when one can be asked: a connection the list does not name is put to them (chat). */
    ask?: AskApprovalFn;
  },
): PermissionSetup {
  const settings = loadSettingsOrThrow(where.cwd, where.harnessHome, where.env);
  const warnings = [...settings.ignored];
  const home = where.env.HOME || homedir();
  const workspace = realpathSync(where.cwd);
  // A secret folder the user chose to work in is not hidden from that work.
  const hidden = secretPaths(home, where.harnessHome, where.env)
    .map(realOrSame)
    .filter((secret) => !isInside(workspace, secret));
  const homeCode = homeCodePaths(realOrSame(home));
  const sandboxPolicy: SandboxPolicy = {
    workspace,
    hidden,
    ...(isInside(realOrSame(home), workspace) ? { homeCode: { home: realOrSame(home), ...homeCode } } : {}),
    socketFolders: socketFolders(where.env),
    protectedNames: PROTECTED_NAMES,
    worktreeGit: worktreeGitMounts(workspace),
    placeholderRecords: path.join(where.harnessHome, "placeholders"),
    network: effectiveNetwork(settings.network, flags.allowNetwork) === true,
    ...rootfsOf(where.env),
  };
  const env = filterCommandEnv(where.env, { passthrough: settings.passthrough, strip: settings.strip });
  let network: SandboxNetwork | undefined;

  // Only the person at the keyboard turns the sandbox off: a flag or their own settings file.
  const isWanted = flags.sandbox === "on" || (flags.sandbox !== "off" && settings.sandboxEnabled !== false);
  const approvalMode = new ApprovalModeSwitch(flags.approve ?? settings.permissionMode ?? "ask");
  let sandbox: SandboxState = "off";
  let wrapCommand: WrapCommand | undefined;
  if (isWanted) {
    const support = (where.detect ?? (() => detectSandbox(where.platform)))();
    switch (support.kind) {
      case "bwrap":
        network = new SandboxNetwork(
          settings.network,
          flags.allowNetwork,
          sandboxPolicy,
          env,
          where.networkTesting,
          { harnessHome: where.harnessHome, folder: workspace },
          (message) => warnings.push(message),
        );
        network.apply();
        if (where.ask) network.ask = networkQuestion(where.ask, true);
        network.onRecord.push((entry) => {
          const who = originText(entry);
          if (!entry.allowed)
            where.warn?.(`network: refused ${entry.host}:${entry.port}${who ? ` for ${who}` : ""} (${entry.why})`);
        });
        wrapCommand = planAware(bwrapWrapper, sandboxPolicy, approvalMode);
        sandbox = "on";
        break;
      case "sandbox-exec":
        if (sandboxPolicy.rootfs) throw new PermissionSetupError(ROOTFS_NEEDS_BWRAP, 1);
        if (typeof effectiveNetwork(settings.network, flags.allowNetwork) === "object")
          warnings.push(
            "sandbox.network lists what commands may reach, which only the Linux sandbox enforces: on macOS the network stays off (docs/network.md)",
          );
        wrapCommand = planAware(sandboxExecWrapper, sandboxPolicy, approvalMode);
        sandbox = "on";
        break;
      case "none":
        if (flags.sandbox === "on")
          throw new PermissionSetupError(`--sandbox on, but ${support.problem}; ${support.fix}`, 1);
        sandbox = "unavailable";
        warnings.push(
          `${support.problem}, so commands run without a sandbox and each one asks first (--yes still runs them). Fix: ${support.fix}; or pass --sandbox off to run without it.`,
        );
        break;
      default:
        return assertNever(support);
    }
  }

  if (sandboxPolicy.rootfs && sandbox !== "on") throw new PermissionSetupError(ROOTFS_NEEDS_BWRAP, 1);
  const policy: PermissionPolicy = {
    mode: approvalMode.current,
    allow: settings.allow,
    deny: settings.deny,
    ask: settings.ask,
    sandbox,
    workspace,
    freeRoots: [realOrSame(tmpdir()), ...settings.directories.map(realOrSame)],
    secretPaths: hidden,
    // Where they really are too: a ~/.bashrc that is a symlink into ~/dotfiles is edited there.
    homeCodePaths: [...new Set([...homeCode.files, ...homeCode.files.map(realOrSame)])],
    // Where the session store keeps over-long tool output (src/session/session-store.ts spillDir).
    readableGlobs: [path.join(realOrSame(where.harnessHome), "sessions", "*", "spill")],
    home: realOrSame(home),
  };
  if (sandbox !== "on" && typeof effectiveNetwork(settings.network, flags.allowNetwork) === "object")
    warnings.push(
      "sandbox.network lists what commands may reach, but commands run without the sandbox, so nothing holds them to it",
    );
  return {
    policy,
    env,
    wrapCommand,
    approvalMode,
    // A file an ask rule names is not walked either: a grep over its folder would show it unasked.
    unwalked: [
      ...hidden,
      ...SYSTEM_PATHS,
      ...deniedReadPaths([...settings.deny, ...settings.ask], policy).map(realOrSame),
    ],
    secrets: secretValuesOf(where.env),
    warnings,
    settingsFiles: settings.files,
    notTaken: settings.ignored,
    projectAllow: settings.projectAllow,
    projectDirectories: settings.projectDirectories.map(realOrSame),
    trustedFolders: settings.trustedFolders,
    network,
  };
}

/** The setup of a trusted folder: its project's allow rules and additional directories join the user's. */
export function withProjectRules(setup: PermissionSetup): PermissionSetup {
  const { policy } = setup;
  setup.network?.trust();
  setup.network?.apply();
  return {
    ...setup,
    policy: {
      ...policy,
      allow: [...policy.allow, ...setup.projectAllow],
      freeRoots: [...policy.freeRoots, ...setup.projectDirectories],
    },
    projectAllow: [],
    projectDirectories: [],
  };
}

/**
 * The setup with more folders the file tools may read without asking, even outside the
 * workspace or inside harness's own state: the folders of the skills the session lists, whose
 * files the model is told to read.
 */
export function withReadableFolders(setup: PermissionSetup, folders: string[]): PermissionSetup {
  return { ...setup, policy: { ...setup.policy, readableGlobs: [...setup.policy.readableGlobs, ...folders] } };
}

/**
 * One wrapper for the session (the command helper is kept per wrapper), whose sandbox has the
 * workspace read-only whenever the mode is plan: the helper's arguments change with the mode,
 * so the next command after a switch starts a new helper (command-host.ts).
 */
function planAware(
  wrapperFor: (policy: SandboxPolicy) => WrapCommand,
  policy: SandboxPolicy,
  mode: ApprovalModeSwitch,
): WrapCommand {
  // Read at each command: the network's settings (SandboxNetwork.apply) may change the policy later.
  return (argv, cwd) =>
    wrapperFor(mode.current === "plan" ? { ...policy, readOnlyWorkspace: true } : policy)(argv, cwd);
}

/** Where services keep their unix sockets: the runtime folders (docker.sock, D-Bus, ssh-agent, systemd). */
function socketFolders(env: Record<string, string | undefined>): string[] {
  const folders = ["/run", "/var/run"];
  if (env.XDG_RUNTIME_DIR && path.isAbsolute(env.XDG_RUNTIME_DIR)) folders.push(env.XDG_RUNTIME_DIR);
  return folders;
}

function loadSettingsOrThrow(cwd: string, harnessHome: string, env: Record<string, string | undefined>) {
  try {
    return loadSettings(cwd, harnessHome, env);
  } catch (error) {
    if (error instanceof SettingsError) throw new PermissionSetupError(error.message, 2);
    throw error;
  }
}

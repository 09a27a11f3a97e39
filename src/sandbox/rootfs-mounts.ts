// Linux: a command's sandbox on a root filesystem folder instead of the host's `/` (a task
// environment, docs/batch.md#task-environments-environment). bwrap's new root is its own tmpfs;
// each top-level entry of the root filesystem is bound there read-only, the repository at its
// path inside (`/testbed`, as SWE-bench's images have it) and at its host path too where that
// can be made, so the file tools' paths and the commands' agree. Nothing of the host's files is
// there but the kernel's own (/sys read-only, a fresh /proc and /dev) and the sandbox's helper.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readlinkSync } from "node:fs";
import { basename, isAbsolute, join, relative } from "node:path";
import { isInside } from "../shared/is-inside.ts";
import { kernelFileArgs } from "./kernel-files.ts";
import { protectedMounts } from "./protected-entries.ts";
import type { RootFilesystem, SandboxPolicy } from "./sandbox-policy.ts";

/** Entries of the root filesystem the sandbox makes itself. */
const KERNEL_ENTRIES = new Set(["dev", "proc", "sys", "tmp"]);

/** Where the host's program (the command helper's `node`) and its libraries are mounted inside. */
const HOST_PROGRAM_DIR = "/.harness-host";

/** The mounts that make `rootfs` the command's `/`, the workspace writable in it (read-only in plan mode). */
export function rootfsMounts(policy: SandboxPolicy, rootfs: RootFilesystem): string[] {
  const args: string[] = [];
  const entries = readdirSync(rootfs.dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (KERNEL_ENTRIES.has(entry.name)) continue;
    const inside = `/${entry.name}`;
    const full = join(rootfs.dir, entry.name);
    if (entry.isSymbolicLink()) args.push("--symlink", readlinkSync(full), inside);
    else if (entry.isDirectory() || entry.isFile()) args.push("--ro-bind", full, inside);
  }
  args.push("--dev", "/dev", "--ro-bind", "/sys", "/sys", "--tmpfs", "/tmp");
  const bind = policy.readOnlyWorkspace ? "--ro-bind" : "--bind";
  for (const at of workspacePlaces(
    policy.workspace,
    rootfs,
    entries.map((entry) => entry.name),
  )) {
    args.push(bind, policy.workspace, at);
    if (!policy.readOnlyWorkspace)
      args.push(
        ...moved(
          protectedMounts(policy.workspace, policy.protectedNames, policy.placeholderRecords),
          policy.workspace,
          at,
        ),
      );
  }
  args.push(...kernelFileArgs());
  return args;
}

/**
 * The environment's path, and the host path when its mount point can be made: under /tmp (the
 * sandbox's tmpfs) or a first folder the root filesystem lacks (made on bwrap's tmpfs root). Not
 * when it would have to be made inside one of the root filesystem's read-only entries.
 */
function workspacePlaces(workspace: string, rootfs: RootFilesystem, names: string[]): string[] {
  const first = workspace.split("/")[1] ?? "";
  const canMake = first === "tmp" || (!names.includes(first) && !KERNEL_ENTRIES.has(first));
  return workspace === rootfs.workspaceAt || !canMake ? [rootfs.workspaceAt] : [rootfs.workspaceAt, workspace];
}

/** protectedMounts' arguments for the workspace at another place: every destination inside it moved. */
function moved(args: string[], from: string, to: string): string[] {
  if (from === to) return args;
  // Each of these options' last path is its destination (`--ro-bind src dest`, `--tmpfs dest`, ...).
  return args.map((arg, index) => {
    const isDestination = index + 1 === args.length || args[index + 1].startsWith("--");
    return isDestination && isInside(arg, from) ? join(to, relative(from, arg)) : arg;
  });
}

/** The command's directory inside: a folder of the workspace at its place in the environment. */
export function rootfsCwd(policy: SandboxPolicy, rootfs: RootFilesystem, cwd: string): string {
  return isInside(cwd, policy.workspace)
    ? join(rootfs.workspaceAt, relative(policy.workspace, cwd))
    : rootfs.workspaceAt;
}

const hostPrograms = new Map<string, { mounts: string[]; argv: string[] }>();

/**
 * A host program (the command helper's own `node`, not in the root filesystem): mounted under
 * /.harness-host with the shared libraries `ldd` names, and started through the host's dynamic
 * loader with `--library-path`, so it runs on the host's libraries while the commands it starts
 * run on the root filesystem's (no LD_LIBRARY_PATH reaches them). Other argv are left as they are.
 */
export function hostProgram(argv: string[]): { mounts: string[]; argv: string[] } {
  const program = argv[0];
  if (!isAbsolute(program) || !existsSync(program)) return { mounts: [], argv };
  let known = hostPrograms.get(program);
  if (!known) {
    const inside = `${HOST_PROGRAM_DIR}/${basename(program)}`;
    const mounts = ["--ro-bind", program, inside];
    const libraries = spawnSync("ldd", [program], { encoding: "utf8", timeout: 10_000 }).stdout ?? "";
    let loader: string | undefined;
    for (const line of libraries.split("\n")) {
      const path = /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(line)?.[1];
      if (!path) continue;
      const target = `${HOST_PROGRAM_DIR}/lib/${basename(path)}`;
      mounts.push("--ro-bind", path, target);
      if (!line.includes("=>")) loader = target;
    }
    known = { mounts, argv: loader ? [loader, "--library-path", `${HOST_PROGRAM_DIR}/lib`, inside] : [inside] };
    hostPrograms.set(program, known);
  }
  return { mounts: known.mounts, argv: [...known.argv, ...argv.slice(1)] };
}

/** The variables a batch sets for a task in an environment (src/batch/environment/): the folder, and where the repository is in it. */
export const ROOTFS_VARIABLE = "HARNESS_SANDBOX_ROOTFS";
const ROOTFS_AT_VARIABLE = "HARNESS_SANDBOX_ROOTFS_AT";

/** The root filesystem the environment names, or undefined; a wrong one throws, saying what is wrong. */
export function rootfsFromEnv(env: Record<string, string | undefined>): RootFilesystem | undefined {
  const dir = env[ROOTFS_VARIABLE];
  if (!dir) return undefined;
  const workspaceAt = env[ROOTFS_AT_VARIABLE] || "/testbed";
  if (!isAbsolute(dir) || !existsSync(join(dir, ".")))
    throw new Error(`${ROOTFS_VARIABLE} must name an existing folder by its absolute path, not ${dir}`);
  if (!isAbsolute(workspaceAt) || workspaceAt === "/" || workspaceAt.split("/").includes(".."))
    throw new Error(`${ROOTFS_AT_VARIABLE} must be an absolute path below /, not ${workspaceAt}`);
  return { dir, workspaceAt };
}

// A task's environment (docs/batch.md#task-environments-environment): a root filesystem folder,
// or an OCI image unpacked into one by podman or docker, that the task's setup, the agent's
// commands and its test run in, through the same bubblewrap sandbox as on the host's `/`. The
// child harness and the setup/test sandbox are told by two variables (sandbox/rootfs-mounts.ts).
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";

/** SWE-bench's images keep the repository at /testbed; so do we unless told otherwise. */
const DEFAULT_WORKDIR = "/testbed";

/**
 * The characters of an image reference (distribution's grammar, github.com/distribution/reference
 * reference.go: a name of lowercase components, a domain and port, `:tag`, `@sha256:...`), loosely:
 * it starts with a letter or digit, so it is never taken for an engine's option (`--privileged`)
 * nor names `.` or `..` as its folder. The engine judges the rest.
 */
const IMAGE_REFERENCE = /^[A-Za-z0-9][A-Za-z0-9._/:@+-]*$/;

export const environmentSchema = z
  .strictObject({
    /** A folder that is the commands' `/` (relative to the tasks file). */
    rootfs: z.string().min(1).optional(),
    /** An OCI image reference, unpacked once per batch with podman or docker. */
    image: z
      .string()
      .max(512)
      .regex(IMAGE_REFERENCE, "must be an image reference, such as localhost/name:tag")
      .optional(),
    /** Where the repository appears inside. */
    workdir: z
      .string()
      .regex(/^\/(?!.*(^|\/)\.\.(\/|$)).+/, "must be an absolute path below /, without ..")
      .optional(),
  })
  .refine((environment) => Boolean(environment.rootfs) !== Boolean(environment.image), {
    message: "give either rootfs or image",
  });

export type TaskEnvironment = z.infer<typeof environmentSchema>;

/** The environment with its rootfs taken from the tasks file's folder. */
export function resolveEnvironment(environment: TaskEnvironment, base: string): TaskEnvironment {
  return environment.rootfs ? { ...environment, rootfs: resolve(base, environment.rootfs) } : environment;
}

/** The two variables the child harness and the setup/test sandbox read (sandbox/rootfs-mounts.ts). */
export async function environmentVariables(
  environment: TaskEnvironment,
  workRoot: string,
  signal: AbortSignal,
): Promise<Record<string, string>> {
  const rootfs = environment.rootfs ?? (await unpackedImage(environment.image ?? "", workRoot, signal));
  if (!existsSync(join(rootfs, "."))) throw new Error(`environment.rootfs ${rootfs} is not a folder`);
  return { HARNESS_SANDBOX_ROOTFS: rootfs, HARNESS_SANDBOX_ROOTFS_AT: environment.workdir ?? DEFAULT_WORKDIR };
}

/**
 * podman, else docker, whichever answers `info` (a docker client without its daemon does not).
 * Asked without blocking: a worker's heartbeat must go on while an engine is slow to answer.
 */
async function containerEngine(): Promise<string | undefined> {
  for (const engine of ["podman", "docker"])
    if ((await engineRun(engine, ["info"], INFO_TIMEOUT_MS)).code === 0) return engine;
  return undefined;
}

/** How long an engine's `info` may take, and its `create` (which pulls the image when it is not there). */
const INFO_TIMEOUT_MS = 20_000;
const CREATE_TIMEOUT_MS = 30 * 60_000;

/** An engine command's exit code and output (stdout, and stderr's last line: its error). */
function engineRun(
  engine: string,
  args: string[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<{ code: number | null; stdout: string; error: string }> {
  return new Promise((done) => {
    const child = spawn(engine, args, { stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs, signal });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", (error) => done({ code: null, stdout, error: error.message }));
    child.on("close", (code) =>
      done({ code, stdout: stdout.trim(), error: stderr.trim().split("\n").at(-1) ?? `exited ${code}` }),
    );
  });
}

const unpacking = new Map<string, Promise<string>>();

/**
 * The image's file system as a folder under the working copies (`environments/<ref>-<hash>`),
 * made once per work folder: `create` a container (never started), `export` its file system into
 * tar, then the container is removed. *Decision*: the image is run by our bubblewrap sandbox, not
 * by the engine, so its commands are sandboxed exactly as on a root filesystem (no network unless
 * allowed, no keys) and no daemon runs them.
 */
function unpackedImage(image: string, workRoot: string, signal: AbortSignal): Promise<string> {
  // Named for people, with a hash so that two references never share a folder (`a/b`, `a_b`).
  const hash = createHash("sha256").update(image).digest("hex").slice(0, 12);
  const dir = join(workRoot, "environments", `${image.replace(/[^A-Za-z0-9._-]/g, "_")}-${hash}`);
  let pending = unpacking.get(dir);
  if (!pending) {
    pending = existsSync(dir) ? Promise.resolve(dir) : unpack(image, dir, signal);
    // A failed unpack is tried again by the next task that names the image.
    pending.catch(() => unpacking.delete(dir));
    unpacking.set(dir, pending);
  }
  return pending;
}

async function unpack(image: string, dir: string, signal: AbortSignal): Promise<string> {
  const engine = await containerEngine();
  if (!engine)
    throw new Error(
      `environment.image ${image} needs podman or docker, and neither answers here (install one and start its service, or give rootfs)`,
    );
  // A command is given because an image made by `import` (no CMD) is refused without one ("no
  // command or entrypoint provided"); the container never starts, so it never runs.
  const created = await engineRun(engine, ["create", "--", image, "true"], CREATE_TIMEOUT_MS, signal);
  if (created.code !== 0) throw new Error(`${engine} create ${image}: ${created.error}`);
  const container = created.stdout;
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  try {
    await new Promise<void>((done, fail) => {
      const exporter = spawn("sh", ["-c", `"$0" export "$1" | tar -x -C "$2"`, engine, container, partial], {
        stdio: ["ignore", "ignore", "pipe"],
        signal,
      });
      let stderr = "";
      exporter.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      exporter.on("error", fail);
      exporter.on("close", (code) => (code === 0 ? done() : fail(new Error(`${engine} export ${image}: ${stderr}`))));
    });
    renameSync(partial, dir);
    return dir;
  } finally {
    await engineRun(engine, ["rm", container], INFO_TIMEOUT_MS);
  }
}

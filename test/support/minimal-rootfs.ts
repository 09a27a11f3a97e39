// A root filesystem for task-environment tests, made without the network: the host's bash,
// sh and a few coreutils (and python3 when asked), each at its host path with the shared
// libraries `ldd` names, `/bin` and `/lib*` as the host has them (links or folders), an empty
// `/testbed`, and a marker file only this root filesystem holds.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readlinkSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";

const PROGRAMS = ["bash", "sh", "cat", "ls", "echo", "id", "env", "mkdir", "test", "grep", "head", "touch", "rm"];

/** Where the marker is inside the root filesystem, and what it says. */
export const ROOTFS_MARKER = { path: "/etc/harness-rootfs-marker", text: "inside the test rootfs" };

/** Builds the root filesystem in `dir` (made); `python` adds the host's python3 and its standard library. */
export function makeMinimalRootfs(dir: string, options: { python?: boolean } = {}): string {
  mkdirSync(dir, { recursive: true });
  for (const top of ["bin", "sbin", "lib", "lib64", "lib32"]) {
    const host = `/${top}`;
    if (!existsSync(host) || !lstatSync(host).isSymbolicLink()) continue;
    const target = readlinkSync(host);
    mkdirSync(join(dir, target.startsWith("/") ? target : join("/", target)), { recursive: true });
    symlinkSync(target, join(dir, top));
  }
  const copy = (file: string) => {
    const real = realpathSync(file);
    for (const path of new Set([real, file])) {
      const target = join(dir, path);
      if (existsSync(target)) continue;
      mkdirSync(dirname(target), { recursive: true });
      if (path === real) copyFileSync(real, target);
      else symlinkSync(real, target);
    }
  };
  const programs = PROGRAMS.map((name) =>
    execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim(),
  );
  if (options.python)
    programs.push(realpathSync(execFileSync("sh", ["-c", "command -v python3"], { encoding: "utf8" }).trim()));
  for (const program of programs.filter((path) => path.startsWith("/"))) {
    copy(program);
    const libraries = execFileSync("ldd", [program], { encoding: "utf8" }).split("\n");
    for (const line of libraries) {
      const library = /(\/\S+)\s+\(0x/.exec(line)?.[1];
      if (library) copy(library);
    }
  }
  mkdirSync(join(dir, "testbed"), { recursive: true });
  mkdirSync(join(dir, "etc"), { recursive: true });
  writeFileSync(join(dir, ROOTFS_MARKER.path), `${ROOTFS_MARKER.text}\n`);
  return dir;
}

/** A file every Debian-like host has and the minimal rootfs has not. */
const HOST_ONLY = "/etc/os-release";
/** Why the rootfs tests cannot tell the host's `/` from the rootfs here, or false. */
export const hostOnlyMissing = existsSync(HOST_ONLY) ? false : `${HOST_ONLY} missing on this host`;

const IN_ROOTFS = `grep -q "${ROOTFS_MARKER.text}" ${ROOTFS_MARKER.path} && test ! -e ${HOST_ONLY} && test "$(pwd)" = /testbed`;

/** A task whose setup and test each check they run in the minimal rootfs at /testbed (the test sees the setup's file). */
export function probeTask(id: string, environment: object) {
  return {
    id,
    prompt: "look around",
    environment,
    setup: `${IN_ROOTFS} && echo set > from-setup.txt`,
    test: `${IN_ROOTFS} && test -f from-setup.txt`,
  };
}

/** The model's side of probeTask: one bash call (`c1`) that looks around, then an answer. */
export const PROBE_STEPS = [
  {
    reply: {
      toolCalls: [
        {
          id: "c1",
          name: "bash",
          arguments: {
            command: `cat ${ROOTFS_MARKER.path}; pwd; test -e ${HOST_ONLY} && echo HOST-VISIBLE; test -f /testbed/from-setup.txt && echo SAME-FOLDER; echo done`,
          },
        },
      ],
    },
  },
  { reply: { text: "looked" } },
];

/** What the agent's command of PROBE_STEPS saw (its tool result) shows it ran in the rootfs, beside setup's file. */
export function assertProbed(seen: string): void {
  assert.match(seen, new RegExp(ROOTFS_MARKER.text));
  assert.match(seen, /SAME-FOLDER/);
  assert.doesNotMatch(seen, /HOST-VISIBLE/);
  assert.match(seen, /done/);
}

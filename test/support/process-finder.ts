// Finding the harness processes a batch or worker started, from the outside, as a person with
// `ps` would: by their working folder.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** The pids of harness processes (node running bin/harness.js) whose working folder is inside `dir`. */
export function harnessesIn(dir: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const cwd = readlinkSync(`/proc/${name}/cwd`);
        const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
        return cwd.startsWith(`${dir}/`) && cmdline.includes("harness.js") ? [Number(name)] : [];
      } catch {
        return []; // gone meanwhile, or not ours to look at
      }
    });
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// A child's peak resident memory, for tests that bound what a hostile input may cost.
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";

/** A skip reason where /proc/<pid>/status (VmHWM) cannot be read. */
export const needsProc = existsSync("/proc/self/status") ? false : "needs /proc";

/** Samples the child's peak resident memory (VmHWM) until it exits; resolves to MB. */
export function peakRssMb(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    let peakKb = 0;
    const sample = () => {
      try {
        const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
        if (match) peakKb = Math.max(peakKb, Number(match[1]));
      } catch {
        // gone
      }
    };
    const timer = setInterval(sample, 25);
    child.on("exit", () => {
      clearInterval(timer);
      resolve(peakKb / 1024);
    });
  });
}

// Which process owns something on disk (a session's lock, the sandbox's placeholders), told so
// that a later process can see whether the owner still runs: a pid alone is not enough, since
// pids are reused and a reboot starts them over.
import { readFileSync } from "node:fs";

/** A process, as written down by itself. */
export interface ProcessOwner {
  pid: number;
  /** When it wrote this (ISO time), for messages such as "in use since". */
  since: string;
  /** Its start time in clock ticks since boot (Linux), so a reused pid is not mistaken for it. */
  processStart?: string;
  /** The boot it ran in (Linux): after a reboot every old owner is gone, whatever its pid. */
  bootId?: string;
}

/** This process. */
export function currentOwner(): ProcessOwner {
  const processStart = processStartOf(process.pid);
  const bootId = currentBootId();
  return {
    pid: process.pid,
    since: new Date().toISOString(),
    ...(processStart ? { processStart } : {}),
    ...(bootId ? { bootId } : {}),
  };
}

/** An owner from its JSON; undefined when the text is not one. */
export function parseOwner(text: string): ProcessOwner | undefined {
  try {
    const owner = JSON.parse(text) as ProcessOwner;
    return Number.isInteger(owner.pid) && owner.pid > 0 && typeof owner.since === "string" ? owner : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the owner still runs: same boot, its pid exists, and (where the system says) it started when it did. */
export function isOwnerAlive(owner: ProcessOwner): boolean {
  const bootId = currentBootId();
  if (owner.bootId && bootId && owner.bootId !== bootId) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false; // ESRCH: no such process
  }
  const stat = procStatFields(owner.pid);
  if (stat && (stat[0] === "Z" || stat[0] === "X")) return false; // dead, not yet reaped by its parent
  const start = stat?.[19];
  return !owner.processStart || !start || start === owner.processStart;
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses): state first. */
function procStatFields(pid: number): string[] | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot. */
function processStartOf(pid: number): string | undefined {
  return procStatFields(pid)?.[19];
}

function currentBootId(): string | undefined {
  return readText("/proc/sys/kernel/random/boot_id")?.trim() || undefined;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

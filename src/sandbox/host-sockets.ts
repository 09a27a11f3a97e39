// Unix sockets of host services (docker.sock, the D-Bus bus, ssh-agent, editors' IPC) that a
// sandboxed command could connect to: a read-only bind does not stop connect(), so each one
// outside the masked folders is covered with /dev/null. The kernel lists every bound socket in
// /proc/net/unix; abstract sockets (`@name`) are cut off by the network namespace instead, and
// are reachable only with the network allowed.
import { lstatSync, readFileSync } from "node:fs";

/** Sockets masked one by one at most (the rest live in masked folders on any usual system). */
const MAX_MASKED_SOCKETS = 256;

/** Paths of unix sockets bound on the host now, except those `isCovered` says are masked already. */
export function hostSocketPaths(isCovered: (file: string) => boolean): string[] {
  let table: string;
  try {
    table = readFileSync("/proc/net/unix", "utf8");
  } catch {
    return [];
  }
  const found = new Set<string>();
  for (const line of table.split("\n").slice(1)) {
    const file = line.trim().split(/\s+/).slice(7).join(" ");
    if (!file.startsWith("/") || found.has(file) || isCovered(file)) continue;
    if (!isSocket(file)) continue;
    found.add(file);
    if (found.size >= MAX_MASKED_SOCKETS) break;
  }
  return [...found];
}

function isSocket(file: string): boolean {
  try {
    return lstatSync(file).isSocket();
  } catch {
    return false;
  }
}

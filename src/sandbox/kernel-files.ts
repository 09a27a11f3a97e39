// Linux: the kernel's own files a sandboxed command sees, /proc and /sys, as data. In a user
// namespace that maps only the caller's uid, root inside is still uid 0 to the kernel's sysctl
// checks: without capabilities it could write /proc/sys (`kernel.core_pattern = |<workspace>/x`
// runs `x` as root on the host at the next crash), and the host network's settings when the
// network is shared. bwrap makes /proc/sys read-only only in some set-ups, so it is done here.
import { isInside } from "../shared/is-inside.ts";
import { kindOf } from "./file-kind.ts";

/**
 * The kernel files, as data. Docker's defaults are the floor: moby/moby `oci/defaults.go`,
 * `DefaultLinuxSpec` (ReadonlyPaths `/proc/bus`, `/proc/fs`, `/proc/irq`, `/proc/sys`,
 * `/proc/sysrq-trigger`; MaskedPaths below, with `/proc/interrupts` and
 * `/sys/devices/virtual/powercap` that later Docker releases added).
 * *Decision*: not only those five but the whole new `/proc` is read-only (`readOnly`), the
 * command's own `/proc/self` included: a list of files can miss one a new kernel adds, and
 * nothing a command should do writes there (`/proc/self/fd/N` and `/dev/stdout` still work: those
 * links open the pipe or file itself, on its own mount). What does not work: a debugger writing
 * memory through `/proc/<pid>/mem`, a program raising its own `oom_score_adj`. `/sys` is already
 * read-only (the `--ro-bind / /` covers it).
 */
export const LINUX_KERNEL_FILES = {
  /** Mounted read-only, after the masks below are placed inside it. */
  readOnly: ["/proc"],
  /** Hidden: a file behind /dev/null, a folder behind an empty read-only tmpfs. What is missing here is skipped. */
  masked: [
    "/proc/acpi",
    "/proc/asound",
    "/proc/interrupts",
    "/proc/kcore",
    "/proc/keys",
    "/proc/latency_stats",
    "/proc/sched_debug",
    "/proc/scsi",
    "/proc/timer_list",
    "/proc/timer_stats",
    "/sys/devices/virtual/powercap",
    "/sys/firmware",
  ],
};

/**
 * The bwrap arguments that mount a fresh /proc for the PID namespace and apply LINUX_KERNEL_FILES.
 * Looks at the host's /proc and /sys (the same kernel, so the same entries) to tell files from
 * folders and skip what this kernel lacks: bwrap cannot mount over a missing path of /proc.
 * They go after the workspace's writable bind: a workspace of `/` (`--allow-home`) binds the
 * host's own /proc and /sys back, writable, with everything below them, and the host's /dev
 * (nodev: /dev/null unusable, so no command could start); /sys is then covered read-only again,
 * as `--ro-bind / /` had it, and /dev is the sandbox's own again.
 */
export function kernelFileArgs(workspace?: string): string[] {
  const holds = (path: string) => workspace !== undefined && isInside(path, workspace);
  const args = holds("/dev") ? ["--dev", "/dev", "--proc", "/proc"] : ["--proc", "/proc"];
  if (holds("/sys")) args.push("--ro-bind", "/sys", "/sys");
  for (const path of LINUX_KERNEL_FILES.masked) {
    const kind = kindOf(path);
    if (kind === "folder") args.push("--tmpfs", path, "--remount-ro", path);
    else if (kind === "file") args.push("--ro-bind", "/dev/null", path);
  }
  for (const path of LINUX_KERNEL_FILES.readOnly) args.push("--remount-ro", path);
  return args;
}

// Path containment, which the sandbox (what to mount) and the permission layer (what a call may
// touch) both judge: one home, in the layer both may import.
import path from "node:path";

/** Whether `child` is `parent` or inside it (both already resolved). */
export function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

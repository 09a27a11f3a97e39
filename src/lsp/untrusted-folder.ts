// What a built-in server may not take from a folder that is not trusted: typescript-language-server
// runs the workspace's own TypeScript (node_modules/typescript/lib/tsserver.js) when there is one,
// which is the project's code, and that TypeScript loads the tsconfig's plugins beside it. In such
// a folder harness pins `tsserver.path` to the TypeScript installed with the server itself.
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import type { LanguageServerSpec } from "./server-specs.ts";

/** The spec to start in an untrusted folder, or why it is not started there. */
export function specForUntrusted(spec: LanguageServerSpec, program: string, root: string): LanguageServerSpec | string {
  if (spec.diagnostics !== "tsserver") return spec;
  const tsserver = serversOwnTsserver(program, root);
  if (!tsserver)
    return `${spec.name} not started: this folder is not trusted and no TypeScript was found beside ${program} (it would run the project's own)`;
  const options = (spec.initializationOptions ?? {}) as Record<string, unknown>;
  return { ...spec, initializationOptions: { ...options, tsserver: { path: tsserver } } };
}

/** The tsserver.js in a node_modules above the server's program (as it finds its bundled one), outside the workspace. */
function serversOwnTsserver(program: string, root: string): string | undefined {
  let dir: string;
  try {
    dir = path.dirname(realpathSync(program));
  } catch {
    return undefined;
  }
  const realRoot = path.resolve(root);
  for (;;) {
    const candidate = path.join(dir, "node_modules", "typescript", "lib", "tsserver.js");
    const inside = !path.relative(realRoot, candidate).startsWith("..");
    if (!inside && existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

// The cost of diagnostics after edits (src/lsp, docs/lsp.md) with the real servers of the
// devDependencies: a cold server's first diagnostics (start-up, `initialize` and the first check
// of a one-file project), then the time per edit of a warm one, over EDITS edits. Figures, not
// thresholds; a server not installed is said and skipped.
import { existsSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { LanguageServers } from "../src/lsp/language-servers.ts";
import { KNOWN_SERVERS } from "../src/lsp/server-specs.ts";
import { ROOT, tempDir } from "../test/support/helpers.ts";

const EDITS = 12;
const BIN = join(ROOT, "node_modules", ".bin");

const PROJECTS = [
  { server: "typescript", file: "a.ts", text: (i: number) => `export const n: number = ${i};\n` },
  { server: "pyright", file: "a.py", text: (i: number) => `n: int = ${i}\n` },
];

export async function languageServerBench(): Promise<string[]> {
  const lines: string[] = [];
  for (const project of PROJECTS) {
    const spec = KNOWN_SERVERS.find((known) => known.name === project.server);
    if (!spec || !existsSync(join(BIN, spec.command))) {
      lines.push(`language server ${project.server}: not installed, skipped`);
      continue;
    }
    const root = tempDir("harness-bench-lsp-");
    writeFileSync(join(root, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }));
    const file = join(root, project.file);
    writeFileSync(file, project.text(0));
    const env = { ...process.env, PATH: `${BIN}${delimiter}${process.env.PATH}`, HARNESS_LSP_WAIT_MS: "120000" };
    const servers = new LanguageServers({ root, env, specs: KNOWN_SERVERS, isProjectTrusted: false, warn: () => {} });
    let started = performance.now();
    await servers.afterEdit(file, project.text(1), project.text(0));
    const cold = performance.now() - started;
    const edits: number[] = [];
    for (let i = 2; i < EDITS + 2; i++) {
      started = performance.now();
      await servers.afterEdit(file, project.text(i), project.text(i - 1));
      edits.push(performance.now() - started);
    }
    await servers.close();
    edits.sort((a, b) => a - b);
    lines.push(
      `language server ${project.server}: cold start to a first edit's diagnostics (the file before and after) ${Math.round(cold)} ms; ` +
        `a warm edit's diagnostics median ${Math.round(edits[Math.floor(EDITS / 2)])} ms, max ${Math.round(edits[EDITS - 1])} ms (${EDITS} edits)`,
    );
  }
  return lines;
}

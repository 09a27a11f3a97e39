// `npm test`'s reporter: node's TAP output, then one line per skip reason naming the tests it
// skipped, so the end of a run says what did not run and what to install. The lines start with
// "# skipped " like TAP's own count, so tools that keep the summary lines keep them too.
// Plain JavaScript: node loads reporters before tsx can compile TypeScript.
import { relative } from "node:path";
import { tap } from "node:test/reporters";

/**
 * @param {AsyncIterable<{ type: string, data: { name?: string, file?: string, skip?: string | boolean } }>} source
 * @returns {AsyncGenerator<string>}
 */
export default async function* skipSummaryReporter(source) {
  /** @type {Map<string, string[]>} skip reason → "file: test name" */
  const skipped = new Map();
  async function* noteSkips() {
    for await (const event of source) {
      const { skip, name, file } = event.data ?? {};
      if (event.type === "test:pass" && skip) {
        const reason = typeof skip === "string" ? skip : "no reason given";
        const where = file ? `${relative(process.cwd(), file)}: ${name}` : String(name);
        skipped.set(reason, [...(skipped.get(reason) ?? []), where]);
      }
      yield event;
    }
  }
  yield* tap(noteSkips());
  for (const [reason, tests] of skipped) {
    yield `# skipped because ${reason}: ${tests.length} test${tests.length === 1 ? "" : "s"}\n`;
    for (const test of tests) yield `#   ${test}\n`;
  }
}

// Every HTML page harness writes (a session's export, a batch report) is built by one template
// function, `html`, which escapes every value put into it unless that value is itself markup
// made by `html` (or one of harness's own constants, marked with `trustedHtml`): text from a
// session, a results file or a model cannot become markup by construction, whatever field it is
// in (a string in a results file where a number belonged once ran its script in the report).
// And every page carries a Content-Security-Policy that allows no request and runs only the
// inline scripts it names by hash: were something to slip through, it would not run.
import { createHash } from "node:crypto";
import { escapeHtml } from "./helpers.ts";

/** Markup: made by `html` (its values escaped) or one of harness's own constants. */
export class Html {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

/** What may go into `html`: markup as is, text and numbers escaped, lists joined, nothing for null/undefined/false. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

/** The tagged template every page is made with: `html\`<td>${text}</td>\`` escapes `text`. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let markup = strings[0];
  for (const [index, value] of values.entries()) markup += render(value) + strings[index + 1];
  return new Html(markup);
}

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.markup;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

/** One of harness's own pieces of markup (a style sheet, a script, rendered Markdown that escaped its text itself). */
export function trustedHtml(markup: string): Html {
  return new Html(markup);
}

/**
 * The policy of a self-contained page: nothing fetched (pictures only as data: URLs), inline
 * styles, and only `scripts` (the exact text between `<script>` and `</script>`) run, each named
 * by its SHA-256; no other inline script or event handler does. `connectSelf`: scripts may
 * fetch from the page's own origin.
 */
export function pagePolicy(scripts: readonly string[], options: { connectSelf?: boolean } = {}): Html {
  // A served page (harness serve) talks to the server it came from, and to nothing else.
  const connect = options.connectSelf ? "; connect-src 'self'" : "";
  const hashes = scripts.map((script) => `'sha256-${createHash("sha256").update(script).digest("base64")}'`);
  // Our own words and base64 only: no value from outside, and quotes that must stay as they are.
  return trustedHtml(
    `default-src 'none'; style-src 'unsafe-inline'; script-src ${hashes.join(" ") || "'none'"}; img-src data:; base-uri 'none'; form-action 'none'${connect}`,
  );
}

// package.json's metadata (issue 50): keywords are there, and repository, homepage and bugs are
// each either a well-formed https URL or missing for the reason docs/install.md gives.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "../support/helpers.ts";

const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const install = readFileSync(join(ROOT, "docs", "install.md"), "utf8");

/** The URL a field holds: npm takes a string or an object with `url`. */
const urlOf = (field: unknown) => (typeof field === "string" ? field : (field as { url?: unknown })?.url);

test("package.json has keywords, license, and repository/homepage/bugs as https URLs or their absence explained", () => {
  assert.ok(Array.isArray(manifest.keywords) && manifest.keywords.length >= 5, "keywords");
  for (const keyword of manifest.keywords) assert.match(keyword, /^[a-z0-9-]+$/, `keyword ${keyword}`);
  assert.equal(manifest.license, "MIT");
  const section = install.slice(install.indexOf("## Package metadata"));
  assert.ok(install.includes("## Package metadata"), "docs/install.md has a Package metadata section");
  for (const name of ["repository", "homepage", "bugs"]) {
    const url = urlOf(manifest[name]);
    if (manifest[name] === undefined) {
      assert.match(section, new RegExp(`\`${name}\``), `docs/install.md says why ${name} is missing`);
      continue;
    }
    assert.equal(typeof url, "string", `${name} has a URL`);
    const parsed = new URL((url as string).replace(/^git\+/, ""));
    assert.equal(parsed.protocol, "https:", `${name} is https`);
  }
});

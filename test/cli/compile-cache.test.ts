// Node 22.1+ keeps the compiled code of harness's chunks in $HARNESS_HOME/compile-cache between
// runs (src/cli/cli.ts useCompileCache); Node 20, our floor, has no such cache and writes nothing there.
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import module from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();
const hasCompileCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === "function";

test(`a run ${hasCompileCache ? "fills" : "leaves no"} $HARNESS_HOME/compile-cache on Node ${process.version}`, async () => {
  const fake = await serve([{ reply: { text: "hi" } }]);
  const home = tempDir("harness-home-");
  const result = await runCli([...fakeFlags(fake), "-p", "hi"], { env: cleanEnv({ HARNESS_HOME: home }) });
  assert.equal(result.code, 0, result.stderr);
  const cache = join(home, "compile-cache");
  if (!hasCompileCache) return assert.equal(existsSync(cache), false);
  // One folder per Node version, one file per compiled module.
  const [versionFolder] = readdirSync(cache);
  assert.ok(readdirSync(join(cache, versionFolder)).length > 1, "compiled modules were cached");
});

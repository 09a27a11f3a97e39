// `harness doctor` names what is wrong, one line each with what to do, and never shows a key.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, runCli, tempDir } from "../support/helpers.ts";

const KEY = "sk-ant-doctor-canary-0123456789abcdef";

test("harness doctor: a healthy setup passes and names where the key comes from, never the key", async () => {
  const cwd = tempDir();
  const result = await runCli(["doctor"], { cwd, env: cleanEnv({ ANTHROPIC_API_KEY: KEY }) });
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /^ok {4}Node v\d+/m);
  assert.match(
    result.stdout,
    /^ok {4}provider anthropic, model \S+, https:\/\/api\.anthropic\.com\/?; key from ANTHROPIC_API_KEY$/m,
  );
  assert.doesNotMatch(result.stdout + result.stderr, new RegExp(KEY.slice(8)));
});

test("harness doctor: a broken config, proxy, settings key and MCP program each fail with their place", async () => {
  const cwd = tempDir();
  const env = cleanEnv({ OPENAI_API_KEY: KEY, HTTPS_PROXY: "socks5://127.0.0.1:1080" });
  writeFileSync(join(env.HARNESS_HOME as string, "config.json"), '{"provider": ');
  mkdirSync(join(cwd, ".harness"));
  writeFileSync(join(cwd, ".harness", "settings.json"), JSON.stringify({ permisions: { allow: [] } }));
  writeFileSync(
    join(cwd, ".mcp.json"),
    JSON.stringify({ mcpServers: { notes: { command: "no-such-mcp-program-anywhere", args: [] } } }),
  );
  const result = await runCli(["doctor"], { cwd, env });
  assert.equal(result.code, 1, result.stdout + result.stderr);
  assert.match(result.stdout, /^FAIL {2}config: .*config\.json: not valid JSON/m);
  assert.match(
    result.stdout,
    /^FAIL {2}settings: .*\.harness\/settings\.json: unknown key "permisions" \(did you mean "permissions"\?\)/m,
  );
  assert.match(result.stdout, /^FAIL {2}MCP server notes: "no-such-mcp-program-anywhere" is not found on PATH/m);
  assert.doesNotMatch(result.stdout + result.stderr, new RegExp(KEY.slice(8)));
  // A config.json that cannot be read fails once; the checks after it go on without it.
  assert.equal(result.stdout.split("not valid JSON").length, 2, result.stdout);
  assert.match(result.stdout, /^FAIL {2}proxy: HTTPS_PROXY: only http:\/\/ and https:\/\/ proxies are supported/m);
  assert.match(result.stdout, /^ok {4}provider openai, .*key from OPENAI_API_KEY$/m);
});

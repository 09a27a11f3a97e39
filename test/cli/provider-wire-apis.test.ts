// Every wire API is one record (providers/wire-apis.ts): `--help`, the `--api` error and
// config.json's error name each one, with its key variable, so a new API cannot be left out.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { WIRE_API_NAMES, WIRE_APIS } from "../../src/providers/wire-apis.ts";
import { cleanEnv, runCli } from "../support/helpers.ts";

test("--help lists every wire API by name and label, and every API's key variable", async () => {
  const help = await runCli(["--help"]);
  assert.equal(help.code, 0);
  const lines = help.stdout.split("\n");
  const at = lines.findIndex((line) => line.trimStart().startsWith("--api"));
  const next = lines.findIndex((line, index) => index > at && line.trimStart().startsWith("--"));
  const apiLine = lines.slice(at, next).join(" ").replace(/\s+/g, " ");
  for (const name of WIRE_API_NAMES) {
    assert.ok(apiLine?.includes(`${name} (${WIRE_APIS[name].label})`), `--api names ${name}`);
    assert.ok(help.stdout.includes(WIRE_APIS[name].keyEnv), `the environment names ${WIRE_APIS[name].keyEnv}`);
  }
});

test("a wrong --api and a wrong config.json api both list every wire API", async () => {
  const flag = await runCli(["--api", "cohere", "-p", "hi"]);
  assert.equal(flag.code, 2);
  const env = cleanEnv();
  writeFileSync(join(env.HARNESS_HOME as string, "config.json"), JSON.stringify({ api: "cohere" }));
  const config = await runCli(["-p", "hi"], { env });
  assert.equal(config.code, 2);
  for (const name of WIRE_API_NAMES) {
    assert.match(flag.stderr, new RegExp(`\\b${name}\\b`), `--api error names ${name}`);
    assert.match(config.stderr, new RegExp(`"${name}"`), `config.json error names ${name}`);
  }
});

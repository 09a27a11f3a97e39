// Another local user plants a hook in the victim's state folder. The victim started harness with
// `umask 000` (a shared build box, a careless profile): before, $HARNESS_HOME, sessions/ and the
// rest were made 0777 and the planted settings.json hook ran as the victim at the next start.
// Now everything harness makes there is 0700 (folders) or 0600 (files), so the other user can
// neither write nor read in it. As root and as nobody, the HOME under /var/tmp.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { lstatSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, runAs, skipAs } from "../support/identities.ts";

const serve = fakeServerPerTest();

/** Every entry below `folder` whose mode lets anyone but its owner in: group or other bits. */
function openToOthers(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    const mode = lstatSync(path).mode;
    if (!entry.isSymbolicLink() && (mode & 0o077) !== 0) found.push(`${path} ${(mode & 0o777).toString(8)}`);
    if (entry.isDirectory()) found.push(...openToOthers(path));
  }
  return found;
}

for (const identity of IDENTITIES) {
  test(`as ${identity}: under umask 000 the state folder is private and another user plants nothing`, {
    skip: skipAs(identity),
  }, async () => {
    const home = canaryHomeDir("harness-umask-home-");
    const project = join(home, "project");
    mkdirSync(project);
    execFileSync("git", ["init", "-q", project]);
    handTo(identity, home);
    const harnessHome = join(home, ".harness");
    const env = cleanEnv({ HOME: home, HARNESS_HOME: harnessHome });
    const fake = await serve([
      { reply: { toolCalls: [{ id: "w", name: "write_file", arguments: { path: "made.txt", content: "hi\n" } }] } },
      { reply: { text: "done" } },
    ]);
    const result = await runCli(["-y", "--sandbox", "off", ...fakeFlags(fake), "-p", "write it"], {
      cwd: project,
      env,
      wrap: ["sh", "-c", 'umask 000; exec "$@"', "sh", ...runAs(identity)],
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal((lstatSync(harnessHome).mode & 0o777).toString(8), "700", "$HARNESS_HOME");
    assert.equal((lstatSync(join(harnessHome, "sessions")).mode & 0o777).toString(8), "700", "sessions/");
    assert.deepEqual(openToOthers(harnessHome), [], "entries other users may enter, read or write");
    // The attack: another user (nobody when the victim is root, daemon when it is nobody) plants a
    // hook in settings.json and a session file. Both are refused by the file modes.
    const attacker =
      identity === "root" ? runAs("nobody") : ["setpriv", "--reuid=daemon", "--regid=daemon", "--clear-groups"];
    for (const planted of [join(harnessHome, "settings.json"), join(harnessHome, "sessions", "planted.jsonl")]) {
      const plant = spawnSync(attacker[0], [...attacker.slice(1), "sh", "-c", 'echo "{}" > "$1"', "sh", planted]);
      assert.notEqual(plant.status, 0, `the other user wrote ${planted}`);
      assert.match(String(plant.stderr), /Permission denied/);
    }
  });
}

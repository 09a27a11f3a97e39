// Tools declare what they touch (Tool.effects), and the permission check judges that, never the
// name of an argument. From the attacker's side: a library tool, defined the way a library user
// defines one, whose file argument is not called `path`, is pointed at a credential and at a
// system file through the real loop, the real approver and the permissions a CLI run sets up
// (fixtures/effects/probe.ts); and a file tool that declares nothing is refused in every mode.
// As root, and as nobody (its own process under setpriv). The canary lives in a HOME under
// /var/tmp, outside the temp folder the policy lets file tools use, readable by anyone: only the
// policy stands between the tool and the key.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, afterEach, test } from "node:test";
import { promisify } from "node:util";
import { type FakeLLM, startFakeLLM } from "../support/fake-llm/server.ts";
import { type Probe, type ProbeOutcome, runProbe } from "../support/fixtures/effects/probe.ts";
import { ROOT, tempDir } from "../support/helpers.ts";
import { skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

const CANARY = "CANARY-private-key-4f1c";
const home = mkdtempSync("/var/tmp/harness-effects-home-");
chmodSync(home, 0o755);
mkdirSync(join(home, ".ssh"), { mode: 0o755 });
writeFileSync(join(home, ".ssh", "id_rsa"), `${CANARY}\n`, { mode: 0o644 });
after(() => rmSync(home, { recursive: true, force: true }));

/** Argument names a tool from elsewhere might use for its file; none of them is `path`. */
const ARGUMENT_NAMES = ["file_path", "filename", "target", "p"];
const PROBE = join(ROOT, "test", "support", "fixtures", "effects", "probe.ts");

const servers: FakeLLM[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    assert.deepEqual(server.errors, []);
    await server.close();
  }
});

type Identity = "root" | "nobody";

/** One call of the probe's tool, headless in `mode`, by `identity`. */
async function attack(
  identity: Identity,
  tool: Pick<Probe, "kind" | "argument" | "value" | "declares" | "mode">,
): Promise<ProbeOutcome> {
  const cwd = tempDir();
  const harnessHome = tempDir("harness-state-");
  for (const folder of [cwd, harnessHome]) chmodSync(folder, 0o777);
  const server = await startFakeLLM([
    { reply: { toolCalls: [{ id: "probe", name: `my_${tool.kind}`, arguments: { [tool.argument]: tool.value } }] } },
    { reply: { text: "done" } },
  ]);
  servers.push(server);
  const probe: Probe = { ...tool, home, harnessHome, cwd, baseUrl: server.baseUrl };
  if (identity === "root") return runProbe(probe);
  const { stdout } = await promisify(execFile)(
    "setpriv",
    [
      "--reuid=nobody",
      "--regid=nogroup",
      "--clear-groups",
      process.execPath,
      "--import",
      "tsx",
      PROBE,
      JSON.stringify(probe),
    ],
    { cwd: ROOT, env: { PATH: process.env.PATH, HOME: home, TMPDIR: cwd } },
  );
  return JSON.parse(stdout) as ProbeOutcome;
}

for (const identity of ["root", "nobody"] as const) {
  const skip = identity === "nobody" && (needs("setpriv") || skipAs("nobody"));
  for (const argument of ARGUMENT_NAMES) {
    test(`as ${identity}, a read tool declaring its file as \`${argument}\` is refused ~/.ssh/id_rsa in the default mode`, {
      skip,
    }, async () => {
      const value = join(home, ".ssh", "id_rsa");
      const outcome = await attack(identity, { kind: "read", argument, value, declares: true, mode: "ask" });
      assert.deepEqual(outcome.ran, [], "the tool never ran");
      assert.doesNotMatch(outcome.result, new RegExp(CANARY));
      assert.match(outcome.result, /The user did not allow this tool call\. .*where credentials live/);
    });

    test(`as ${identity}, an edit tool declaring its file as \`${argument}\` is refused /etc/x under --approve edits`, {
      skip,
    }, async () => {
      const value = join("/etc", `harness-effects-${argument}`);
      const outcome = await attack(identity, { kind: "edit", argument, value, declares: true, mode: "edits" });
      assert.deepEqual(outcome.ran, []);
      assert.equal(existsSync(value), false);
      assert.match(outcome.result, /The user did not allow this tool call\. .*outside the workspace/);
    });

    test(`as ${identity}, a file tool with \`${argument}\` that declares no effects is refused headless, even under --yes`, {
      skip,
    }, async () => {
      for (const kind of ["read", "edit"] as const) {
        for (const mode of ["ask", "edits", "all"] as const) {
          const outcome = await attack(identity, { kind, argument, value: "inside.txt", declares: false, mode });
          assert.deepEqual(outcome.ran, [], `${kind} in mode ${mode} never ran`);
          assert.match(
            outcome.result,
            /no one was there to approve it .*does not declare which files it reads or writes/,
          );
        }
      }
    });
  }
}

test("the same tool declaring its file runs inside the workspace, so the refusals above are the policy's", async () => {
  const outcome = await attack("root", {
    kind: "edit",
    argument: "file_path",
    value: "notes.txt",
    declares: true,
    mode: "edits",
  });
  assert.equal(outcome.result, "done");
  assert.equal(outcome.ran.length, 1);
  assert.equal(existsSync(join(ROOT, "notes.txt")), false, "the write went to the workspace, not the test's cwd");
});

test("an execute tool that declares nothing (an MCP server's) asks in the default mode and runs under --yes", async () => {
  const base = { kind: "execute", argument: "to", declares: false } as const;
  const asked = await attack("root", { ...base, value: "staging", mode: "ask" });
  assert.deepEqual(asked.ran, [], "a call that names no file is not allowed by the lack of a path rule");
  assert.match(asked.result, /no one was there to approve it \(headless run without --yes or an allow rule\)/);
  const allowed = await attack("root", { ...base, value: "prod", mode: "all" });
  assert.equal(allowed.result, "done");
  assert.deepEqual(allowed.ran, ["prod"]);
});

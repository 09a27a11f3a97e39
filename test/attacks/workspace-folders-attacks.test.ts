// Folders that may never be a workspace, attacked in every mode but the worker's
// (test/attacks/worker-folders-attacks.test.ts): `harness -y` started inside $HARNESS_HOME, where a model
// plants a settings.json hook that runs outside the sandbox at the next start; an editor's
// session/new in ~/.ssh or ~/.aws, where the sandbox would show (and make writable) what it
// hides; a tasks file whose cwd or repo is a credential folder, the state folder or a path that
// leads to one. Each is refused before anything runs, saying which folder and why, as root and
// as nobody; the canary HOME is under /var/tmp. A hidden project folder (~/.dotfiles) takes
// --allow-home, the decision written in src/wiring/home-workspace.ts.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { methods, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { withEditor } from "../support/acp-editor.ts";
import type { FakeLLM } from "../support/fake-llm/server.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli } from "../support/helpers.ts";
import { canaryHomeDir, handTo, IDENTITIES, type Identity, runAs, skipAs } from "../support/identities.ts";
import { needs } from "../support/system-programs.ts";

const serve = fakeServerPerTest();
const CANARY = "CANARY-never-leaves-its-folder";
const KEYS = `ssh-ed25519 AAAA${CANARY} user@host\n`;
const HOOK = JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: "touch ~/PWNED" }] }] } });

/** A HOME with keys, cloud credentials, a password store (a git repository), harness's state and a project. */
function canaryHome(identity: Identity) {
  const home = canaryHomeDir("harness-workspace-folders-");
  mkdirSync(join(home, ".ssh"));
  writeFileSync(join(home, ".ssh", "authorized_keys"), KEYS);
  mkdirSync(join(home, ".aws"));
  writeFileSync(join(home, ".aws", "credentials"), `aws_secret_access_key = ${CANARY}\n`);
  const store = join(home, ".password-store");
  mkdirSync(store);
  writeFileSync(join(store, "bank.gpg"), `${CANARY}\n`);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: store, stdio: "pipe" });
  git("init", "--quiet");
  git("add", ".");
  git("commit", "--quiet", "-m", "store");
  mkdirSync(join(home, ".harness"));
  mkdirSync(join(home, ".dotfiles"));
  mkdirSync(join(home, "project"));
  symlinkSync(join(home, ".ssh"), join(home, "project", "keys"));
  handTo(identity, home);
  const env = cleanEnv({ HOME: home, HARNESS_HOME: join(home, ".harness") });
  return { home, env };
}

/** The canaries are as the test made them, and nothing was planted. */
function assertUntouched(home: string): void {
  assert.equal(readFileSync(join(home, ".ssh", "authorized_keys"), "utf8"), KEYS);
  assert.equal(existsSync(join(home, ".harness", "settings.json")), false, "no settings planted in $HARNESS_HOME");
  assert.equal(existsSync(join(home, "PWNED")), false);
}

/** Replies that would append a key, plant a hook and read credentials, if anything ran. */
function attackReplies() {
  return [
    {
      reply: {
        toolCalls: [
          { id: "key", name: "bash", arguments: { command: "echo ssh-rsa ATTACKER >> authorized_keys" } },
          { id: "hook", name: "write_file", arguments: { path: "settings.json", content: HOOK } },
          { id: "creds", name: "bash", arguments: { command: "cat credentials ../.aws/credentials; echo END" } },
        ],
      },
    },
    { reply: { text: "done" } },
  ];
}

/** What reached the model: nothing, or a canary. */
function assertNothingReached(fake: FakeLLM): void {
  assert.equal(fake.requests.length, 0, "nothing reached the model");
}

for (const identity of IDENTITIES) {
  test(`as ${identity}: harness -y started inside $HARNESS_HOME or a credential folder stops with exit 2, --allow-home or not`, {
    skip: needs("bwrap", "setpriv") || skipAs(identity),
  }, async () => {
    const { home, env } = canaryHome(identity);
    const fake = await serve(attackReplies());
    const wrap = runAs(identity);
    for (const [folder, why] of [
      [
        ".harness",
        /\.harness is inside .*\.harness, harness's state and settings: a command there could plant settings that run outside the sandbox; harness does not work there/,
      ],
      [".ssh", /\.ssh is inside .*\.ssh, where credentials live; harness does not work there/],
      [".aws", /\.aws is inside .*\.aws, where credentials live/],
      ["project/keys", /\.ssh is inside .*\/\.ssh, where credentials live/],
      [".password-store/.git", /\.git is inside .*\.password-store, where credentials live/],
    ] as const)
      for (const allowHome of [[], ["--allow-home"]]) {
        const run = await runCli([...fakeFlags(fake), "--sandbox", "on", ...allowHome, "-y", "-p", "go"], {
          cwd: join(home, folder),
          env,
          wrap,
        });
        assert.equal(run.code, 2, `${folder} ${allowHome}: ${run.stderr}`);
        assert.match(run.stderr, why, folder);
      }
    const viaFlag = await runCli(["--cwd", join(home, ".ssh"), ...fakeFlags(fake), "-y", "-p", "go"], {
      cwd: join(home, "project"),
      env,
      wrap,
    });
    assert.equal(viaFlag.code, 2, viaFlag.stderr);
    assert.match(viaFlag.stderr, /where credentials live/);
    assertNothingReached(fake);
    assertUntouched(home);
  });

  test(`as ${identity}: a hidden project folder of home (~/.dotfiles) needs --allow-home, and then works`, {
    skip: needs("bwrap", "setpriv") || skipAs(identity),
  }, async () => {
    const { home, env } = canaryHome(identity);
    const fake = await serve([
      { reply: { toolCalls: [{ id: "w", name: "bash", arguments: { command: "echo notes > notes.txt; echo OK" } }] } },
      { reply: { text: "done" } },
    ]);
    const dotfiles = join(home, ".dotfiles");
    const args = [...fakeFlags(fake), "--sandbox", "on", "-y", "-p", "go"];
    const refused = await runCli(args, { cwd: dotfiles, env, wrap: runAs(identity) });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(
      refused.stderr,
      /\.dotfiles is inside .*\.dotfiles, a hidden folder of your home where programs keep their settings and state\. .*pass --allow-home to work here anyway/,
    );
    assertNothingReached(fake);
    const allowed = await runCli(["--allow-home", ...args], { cwd: dotfiles, env, wrap: runAs(identity) });
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.equal(readFileSync(join(dotfiles, "notes.txt"), "utf8"), "notes\n");
  });

  test(`as ${identity}: an editor's session/new in ~/.ssh, ~/.aws or $HARNESS_HOME is refused with the reason`, {
    skip: needs("bwrap", "setpriv") || skipAs(identity),
  }, async () => {
    const { home, env } = canaryHome(identity);
    const fake = await serve(attackReplies());
    const editorEnv = {
      ...env,
      HARNESS_PROVIDER: "openai",
      HARNESS_BASE_URL: fake.baseUrl,
      HARNESS_MODEL: "fake-model",
      HARNESS_API_KEY: "test-key",
    };
    const errors = new Map<string, string>();
    const log = await withEditor(
      {
        env: editorEnv,
        cwd: join(home, "project"),
        answer: () => "allow_once",
        args: ["--allow-home"],
        wrap: runAs(identity),
      },
      async (ctx) => {
        await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
        for (const folder of [".ssh", ".aws", ".harness", "project/keys"]) {
          try {
            const { sessionId } = await ctx.request(methods.agent.session.new, {
              cwd: join(home, folder),
              mcpServers: [],
            });
            await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "go" }] });
            errors.set(folder, "opened");
          } catch (error) {
            errors.set(folder, `${(error as Error).message} ${JSON.stringify(error)}`);
          }
        }
      },
    );
    assert.equal(log.code, 0, log.stderr);
    assert.match(
      errors.get(".ssh") ?? "",
      /\.ssh is inside .*\.ssh, where credentials live; harness does not work there/,
    );
    assert.match(errors.get(".aws") ?? "", /where credentials live/);
    assert.match(errors.get(".harness") ?? "", /harness's state and settings/);
    assert.match(errors.get("project/keys") ?? "", /\.ssh, where credentials live/);
    assertNothingReached(fake);
    assertUntouched(home);
  });

  test(`as ${identity}: a tasks file whose cwd or repo is a credential folder or $HARNESS_HOME runs nothing (exit 2)`, {
    skip: needs("bwrap", "setpriv") || skipAs(identity),
  }, async () => {
    const { home, env } = canaryHome(identity);
    const fake = await serve(attackReplies());
    const tasksDir = join(home, "project");
    const attacks = [
      [
        "ssh",
        { cwd: join(home, ".ssh"), setup: "echo ssh-rsa ATTACKER >> authorized_keys" },
        /\.ssh, where credentials live/,
      ],
      ["state", { cwd: "../.harness", setup: `echo '${HOOK}' > settings.json` }, /harness's state and settings/],
      ["aws", { cwd: join(home, ".aws") }, /\.aws, where credentials live/],
      ["link", { cwd: "keys", setup: "echo ssh-rsa ATTACKER >> authorized_keys" }, /\.ssh, where credentials live/],
      [
        "store",
        { repo: join(home, ".password-store"), setup: "cp bank.gpg leak.txt" },
        /\.password-store, where credentials live/,
      ],
      ["store-url", { repo: `file://${home}/.password-store` }, /\.password-store, where credentials live/],
      ["dotfiles", { cwd: join(home, ".dotfiles"), setup: "touch ~/PWNED" }, /a hidden folder of your home/],
    ] as const;
    for (const [id, fields, why] of attacks) {
      const file = join(tasksDir, `${id}.jsonl`);
      writeFileSync(file, `${JSON.stringify({ id, prompt: "go", ...fields })}\n`);
      handTo(identity, file);
      const run = await runCli(["batch", file, "--out", join(tasksDir, `${id}-results.jsonl`), ...fakeFlags(fake)], {
        cwd: tasksDir,
        env,
        wrap: runAs(identity),
      });
      assert.equal(run.code, 2, `${id}: ${run.stderr}`);
      assert.match(run.stderr, new RegExp(`${id}\\.jsonl: task "${id}": (cwd|repo) `), id);
      assert.match(run.stderr, why, id);
      assert.match(run.stderr, /no task runs there; nothing was run/, id);
      assert.equal(existsSync(join(tasksDir, `${id}-results.jsonl`)), false, `${id}: no results, so no diff`);
    }
    assertNothingReached(fake);
    assertUntouched(home);
  });
}

// Attacks on the bubblewrap sandbox from the inside, as a hostile repository or model would try
// them: regain privileges, reach host services through unix sockets, read the keys. Each test
// runs the real bash tool through the real wrapper the CLI builds. The canary HOME lives under
// /var/tmp, not /tmp: the sandbox's private /tmp would hide a failure there.
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { WrapCommand } from "../../src/core/tool.ts";
import { setupPermissions } from "../../src/permissions/setup-permissions.ts";
import { bash } from "../../src/tools/commands/bash.ts";
import { cleanEnv, fakeFlags, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";
import { needs } from "../support/system-programs.ts";

const PRIVATE_KEY = "CANARY PRIVATE KEY: never readable from the sandbox";
const isRoot = process.getuid?.() === 0;
/** Root is needed to run as root, and to switch to nobody; elsewhere these tests say why they skip. */
const asRootOnly = isRoot ? false : "needs root (to test the sandbox as root, and to switch to nobody with setpriv)";

const serve = fakeServerPerTest();
let home: string;
const servers: Server[] = [];
const socketFolders: string[] = [];

before(() => {
  home = mkdtempSync("/var/tmp/harness-escape-home-");
  chmodSync(home, 0o755); // nobody must reach the workspace's neighbours to prove the masks, not the modes, stop it
  mkdirSync(join(home, ".ssh"));
  writeFileSync(join(home, ".ssh", "id_ed25519"), `${PRIVATE_KEY}\n`);
});
after(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  for (const folder of [home, ...socketFolders]) rmSync(folder, { recursive: true, force: true });
});

/** Who runs bwrap: the test process itself (root), or nobody through setpriv. */
type Identity = "root" | "nobody";

function sandboxed(cwd: string, identity: Identity, options: { network?: boolean; env?: Record<string, string> } = {}) {
  const env = { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin", ...options.env };
  const setup = setupPermissions({ allowNetwork: options.network }, { cwd, env, harnessHome: join(home, ".harness") });
  assert.equal(setup.policy.sandbox, "on");
  const inner = setup.wrapCommand as WrapCommand;
  const wrapCommand: WrapCommand =
    identity === "root"
      ? inner
      : (argv, dir) => ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", ...inner(argv, dir)];
  return async (command: string) => {
    const output = await bash.run(
      { command },
      { cwd, signal: new AbortController().signal, state: new Map(), env: setup.env, wrapCommand },
    );
    return typeof output === "string" ? output : output.content;
  };
}

function workspace(): string {
  const cwd = tempDir();
  chmodSync(cwd, 0o777);
  return cwd;
}

for (const identity of ["root", "nobody"] as const) {
  test(`as ${identity}, a sandboxed command has no capabilities and cannot remount or unmount its way out`, {
    skip: needs("bwrap", "setpriv") || asRootOnly,
  }, async () => {
    const run = sandboxed(workspace(), identity);
    const attack = [
      "exec 2>&1",
      "id -u",
      "grep -E '^Cap(Eff|Prm|Bnd):' /proc/self/status",
      // Make the host's file system writable again, then uncover the keys under the mask.
      "mount -o remount,rw / && echo REMOUNTED",
      `umount ${home}/.ssh && echo UNMOUNTED`,
      `umount -l ${home}/.ssh && echo UNMOUNTED`,
      `cat ${home}/.ssh/id_ed25519`,
      // A nested user namespace would hand out a fresh set of capabilities.
      "unshare --user --map-root-user --mount true && echo NESTED",
      "touch /etc/harness-escape && echo WROTE_ETC",
    ].join("\n");
    const output = await run(attack);
    assert.match(
      output,
      new RegExp(`^${identity === "root" ? 0 : 65534}$`, "m"),
      "the command runs as the caller's own user",
    );
    assert.match(output, /^CapEff:\s+0000000000000000$/m);
    assert.match(output, /^CapPrm:\s+0000000000000000$/m);
    assert.match(output, /^CapBnd:\s+0000000000000000$/m);
    for (const escaped of ["REMOUNTED", "UNMOUNTED", "NESTED", "WROTE_ETC", PRIVATE_KEY])
      assert.doesNotMatch(output, new RegExp(escaped));
  });
}

/** A unix socket server on the host that counts who connects: a stand-in for docker.sock or ssh-agent. */
async function listenOnHostSocket(file: string): Promise<{ connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count++;
    socket.on("error", () => {}); // the client hangs up at once
    socket.end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(file, resolve));
  chmodSync(file, 0o777); // so only the sandbox can be what stops nobody
  return { connections: () => count };
}

/** A command that tries to connect to a unix socket and says what happened. */
function connectCommand(file: string): string {
  const script = `const s=require("net").connect(${JSON.stringify(file)});s.on("connect",()=>{console.log("CONNECTED");s.destroy()});s.on("error",e=>console.log("refused:",e.code))`;
  return `node -e '${script}'`;
}

for (const identity of ["root", "nobody"] as const) {
  test(`as ${identity}, host unix sockets in /run, $XDG_RUNTIME_DIR and elsewhere cannot be connected to, even with the network allowed`, {
    skip: needs("bwrap", "setpriv") || asRootOnly,
  }, async () => {
    const inRun = mkdtempSync("/run/harness-escape-");
    const runtimeDir = mkdtempSync("/var/tmp/harness-escape-xdg-"); // $XDG_RUNTIME_DIR somewhere unusual
    const elsewhere = mkdtempSync(join(home, "app-")); // a socket in an ordinary folder of home
    socketFolders.push(inRun, runtimeDir);
    for (const folder of [inRun, runtimeDir, elsewhere]) chmodSync(folder, 0o755);
    const targets = [join(inRun, "docker.sock"), join(runtimeDir, "bus"), join(elsewhere, "agent.sock")];
    const hosts = await Promise.all(targets.map(listenOnHostSocket));
    const run = sandboxed(workspace(), identity, {
      network: true,
      env: { XDG_RUNTIME_DIR: runtimeDir, SSH_AUTH_SOCK: targets[2] },
    });
    const output = await run(targets.map(connectCommand).join("; "));
    assert.doesNotMatch(output, /CONNECTED/);
    assert.equal(output.match(/refused: E[A-Z]+/g)?.length, 3, output);
    assert.deepEqual(
      hosts.map((host) => host.connections()),
      [0, 0, 0],
    );
    // The test itself (outside the sandbox) still reaches them: the servers were really there.
    const outside = await bash.run(
      { command: connectCommand(targets[0]) },
      { cwd: home, signal: new AbortController().signal, state: new Map() },
    );
    assert.match(typeof outside === "string" ? outside : outside.content, /CONNECTED/);
  });
}

test("variables that point at host agents and buses are not in the command's environment", {
  skip: needs("bwrap"),
}, async () => {
  const agents = {
    SSH_AUTH_SOCK: "/run/user/1000/ssh-agent.sock",
    DBUS_SESSION_BUS_ADDRESS: "unix:path=/run/user/1000/bus",
    DOCKER_HOST: "unix:///var/run/docker.sock",
    XDG_RUNTIME_DIR: "/run/user/1000",
    VSCODE_IPC_HOOK_CLI: "/run/user/1000/vscode-ipc.sock",
    GPG_AGENT_INFO: "/run/user/1000/gnupg/S.gpg-agent",
  };
  const run = sandboxed(tempDir(), "root", { env: { ...agents, PLAIN_SETTING: "kept" } });
  const output = await run("env");
  assert.match(output, /^PLAIN_SETTING=kept$/m);
  for (const name of Object.keys(agents)) assert.doesNotMatch(output, new RegExp(`^${name}=`, "m"));
});

test("a descriptor the harness inherited (here: open on ~/.ssh's key) does not reach sandboxed commands", {
  skip: needs("bwrap"),
}, async () => {
  const fake = await serve([
    {
      reply: {
        toolCalls: [{ id: "fd", name: "bash", arguments: { command: "exec 2>&1; cat <&20; ls /proc/self/fd" } }],
      },
    },
    { reply: { text: "done" } },
  ]);
  // Whatever started harness left fd 20 open without close-on-exec: an editor's pipe, a service
  // manager's socket, or, as here, a file the sandbox hides.
  const keyFile = join(home, ".ssh", "id_ed25519");
  const wrap = ["bash", "-c", 'exec 20<"$0" && exec "$@"', keyFile];
  const result = await runCli([...fakeFlags(fake), "--sandbox", "on", "-y", "-p", "go"], {
    cwd: workspace(),
    env: cleanEnv({ HOME: home }),
    wrap,
  });
  assert.equal(result.code, 0, result.stderr);
  const output = fake.requests[1].body.messages.at(-1).content as string;
  assert.match(output, /20: Bad file descriptor/);
  assert.doesNotMatch(output, new RegExp(PRIVATE_KEY));
  assert.deepEqual(output.match(/^\d+$/gm), ["0", "1", "2", "3"], "stdio and ls's own folder, nothing inherited");
});

test("no process in the sandbox (bwrap's own included) holds harness's keys, and no hardlink reaches a hidden or protected file", {
  skip: needs("bwrap"),
}, async () => {
  const key = "sk-proj-CANARYinHarnessEnv0123456789abcdef";
  const cwd = workspace();
  const attack = [
    "exec 2>&1",
    // /proc/1 is bwrap itself: its environment is the one harness started it with.
    "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ; done | grep -c CANARY",
    `cat /proc/1/root${home}/.ssh/id_ed25519`,
    // A hardlink would be the same file under a name in the workspace, past every mask and mount.
    `ln ${home}/.profile profile-link && echo LINKED_HOME`,
    "ln .git/config config-link && echo LINKED_GIT_CONFIG",
  ].join("\n");
  const fake = await serve([
    { reply: { toolCalls: [{ id: "env", name: "bash", arguments: { command: attack } }] } },
    { reply: { text: "done" } },
  ]);
  writeFileSync(join(home, ".profile"), "# the user's profile\n");
  mkdirSync(join(cwd, ".git"));
  writeFileSync(join(cwd, ".git", "config"), "[core]\n");
  const env = cleanEnv({ HOME: home, OPENAI_API_KEY: key, SOME_TOOL_SETTING: key });
  const result = await runCli([...fakeFlags(fake), "--sandbox", "on", "-y", "-p", "go"], { cwd, env });
  assert.equal(result.code, 0, result.stderr);
  const output = fake.requests[1].body.messages.at(-1).content as string;
  assert.match(output, /^0$/m, "no environment in the sandbox names the key");
  assert.match(output, /Invalid cross-device link[\s\S]*Invalid cross-device link/);
  for (const escaped of ["CANARYinHarnessEnv", PRIVATE_KEY, "LINKED_HOME", "LINKED_GIT_CONFIG"])
    assert.doesNotMatch(output, new RegExp(escaped));
});

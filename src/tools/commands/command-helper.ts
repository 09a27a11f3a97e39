// The program of the command helper (see command-host.ts): a small Node script, run with
// `node -e`, inside the sandbox when there is one. It reads one JSON request per line on stdin
// and answers with binary frames on stdout. It is plain JavaScript in a string, not a module
// of ours, because it runs in its own process, maybe where our files cannot be read, and
// `node -e` compiles a few KB faster than it would load a bundle.
//
// Requests:  {"id":1,"command":"...","cwd":"...","env":{...}}  run `bash -c command`
//            {"id":1,"kill":true}    SIGTERM to the command's tree, SIGKILL after the grace
//            {"id":1,"forget":true}  stop reading its output (the caller is done with it)
// Frames:    type (1 byte), id (uint32 BE), length (uint32 BE), payload
//            S started (payload: its process id as the caller's kill() can use it, "0" when the
//              helper is in a PID namespace of its own), D output bytes, X exited (payload:
//              JSON [code, signal]), C output closed, E could not start (payload: the reason).
// End of stdin (the harness exited or dropped the helper) kills every command and exits. Outside a
// sandbox that includes what a command left running on its own (a `setsid` daemon): a session
// ends what it started, as the sandbox's PID namespace does; a process that cleared its
// environment (`env -i`) is not found, and only a PID namespace would find it.

/** Frame types, as the byte that starts each frame. */
export const FRAME = { started: 0x53, data: 0x44, exited: 0x58, closed: 0x43, failed: 0x45 } as const;
/** Bytes before each frame's payload: type, id, length. */
export const FRAME_HEADER_BYTES = 9;

/** The helper's source; `killGraceMs` is how long a tree gets between SIGTERM and SIGKILL. */
export function helperSource(killGraceMs: number): string {
  return `"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const GRACE = ${killGraceMs};
// In a PID namespace of its own (the sandbox's), every other process is one a command started,
// so a command's leftovers can be found and ended, as when each command had its own sandbox.
const ownPidNamespace = (() => { try { return fs.readlinkSync("/proc/self/ns/pid") !== process.argv[1]; } catch { return false; } })();
// Descriptors the harness itself inherited without close-on-exec (a shell's, an editor's, a
// service manager's: a pipe, a socket, a file the sandbox hides) would pass on to every command
// and reach past the sandbox's masks. Node opens its own with close-on-exec, so those left
// without it above stdio are the inherited ones: closed here, before any command starts.
try {
  for (const name of fs.readdirSync("/proc/self/fd")) {
    const fd = Number(name);
    if (fd <= 2) continue;
    try {
      const flags = /flags:\\s*([0-7]+)/.exec(fs.readFileSync("/proc/self/fdinfo/" + fd, "latin1"));
      if (flags && (parseInt(flags[1], 8) & 0o2000000) === 0) fs.closeSync(fd);
    } catch {}
  }
} catch {}
const commands = new Map(); // id -> { child, exited }
// Outside a PID namespace, a process that left its group and lost its parent (setsid, a double
// fork) cannot be traced to its command by ancestry; it still carries this mark in its
// environment (unless it cleared it), and is found by that when the session closes.
const MARK_NAME = "HARNESS_COMMAND_HELPER";
const MARK_VALUE = process.pid + "." + Date.now() + "." + Math.random().toString(36).slice(2);
const MARK = MARK_NAME + "=" + MARK_VALUE;
function markedProcesses() {
  const found = [];
  try {
    for (const name of fs.readdirSync("/proc")) {
      if (!/^[0-9]+$/.test(name) || Number(name) === process.pid) continue;
      try { if (("\\0" + fs.readFileSync("/proc/" + name + "/environ", "latin1") + "\\0").includes("\\0" + MARK + "\\0")) found.push(Number(name)); } catch {}
    }
  } catch {}
  return found;
}
function frame(type, id, payload) {
  const head = Buffer.allocUnsafe(${FRAME_HEADER_BYTES});
  head[0] = type; head.writeUInt32BE(id, 1); head.writeUInt32BE(payload.length, 5);
  process.stdout.write(Buffer.concat([head, payload]));
}
function signalAll(pids, signal) { for (const pid of pids) { try { process.kill(pid, signal); } catch {} } }
// The process group, and every process descended from its leader (one that left the group with
// setsid included) as long as the line of parents is unbroken. Linux only; elsewhere the group.
function treeOf(pid) {
  const targets = [-pid];
  try {
    const children = new Map();
    for (const name of fs.readdirSync("/proc")) {
      if (!/^[0-9]+$/.test(name)) continue;
      try {
        const stat = fs.readFileSync("/proc/" + name + "/stat", "latin1");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        if (!children.has(ppid)) children.set(ppid, []);
        children.get(ppid).push(Number(name));
      } catch {}
    }
    for (let i = 0, queue = [pid]; i < queue.length; i++) for (const child of children.get(queue[i]) || []) { queue.push(child); targets.push(child); }
  } catch {}
  return targets;
}
function killTree(pid) {
  signalAll(treeOf(pid), "SIGTERM");
  setTimeout(() => signalAll(treeOf(pid).concat(-pid), "SIGKILL"), GRACE).unref();
}
// A command ended: in our own namespace its group dies with it, and once no command runs,
// so does anything else left (a daemon that left the group), as it did with a sandbox per command.
function endLeftovers(pid) {
  signalAll([-pid], "SIGKILL");
  for (const entry of commands.values()) if (!entry.exited) return;
  try { signalAll(fs.readdirSync("/proc").filter((n) => /^[0-9]+$/.test(n)).map(Number).filter((p) => p !== 1 && p !== process.pid), "SIGKILL"); } catch {}
}
// Known limit: a command that kills this helper before the "started" frame below is written cannot be named to
// the harness, so without a sandbox its group outlives the helper (with one, bwrap's --die-with-parent ends it).
// Closing it means holding the command until that frame is out, which costs a second bash per command.
function run(id, request) {
  let child;
  try {
    const env = Object.assign({}, request.env, { [MARK_NAME]: MARK_VALUE });
    child = spawn("bash", ["-c", request.command], { cwd: request.cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  } catch (error) {
    frame(${FRAME.failed}, id, Buffer.from(String(error && error.message)));
    return;
  }
  const entry = { child, exited: false, command: request.command };
  commands.set(id, entry);
  child.on("error", (error) => { entry.exited = true; commands.delete(id); frame(${FRAME.failed}, id, Buffer.from(String(error.message))); });
  if (child.pid === undefined) return;
  frame(${FRAME.started}, id, Buffer.from(String(ownPidNamespace ? 0 : child.pid)));
  const forward = (chunk) => frame(${FRAME.data}, id, chunk);
  child.stdout.on("data", forward);
  child.stderr.on("data", forward);
  child.on("exit", (code, signal) => {
    entry.exited = true;
    frame(${FRAME.exited}, id, Buffer.from(JSON.stringify([code, signal])));
    if (ownPidNamespace) endLeftovers(child.pid);
  });
  child.on("close", () => { if (commands.delete(id)) frame(${FRAME.closed}, id, Buffer.alloc(0)); });
}
function handle(request) {
  const entry = commands.get(request.id);
  if (request.kill) { if (entry) killTree(entry.child.pid); return; }
  if (request.forget) {
    if (!entry) return;
    commands.delete(request.id);
    entry.child.stdout.destroy(); entry.child.stderr.destroy();
    return;
  }
  run(request.id, request);
}
// With a network allowlist the sandbox has its own network namespace, and its one way out is
// the harness's proxy on a unix socket mounted inside (sandbox/network-proxy.ts). The helper
// listens on 127.0.0.1 inside, where HTTP_PROXY points, and relays each connection to it;
// a loopback grant's port (localhost:5432) becomes a CONNECT to that port. The relay holds no
// rule: whatever reaches the socket is judged by the proxy. Commands start once it listens.
// Each connection to the proxy starts with one line naming the command whose process opened it
// (sandbox/relay-origin.ts), found in /proc: the socket's inode, the process holding it, and up
// its parents to a command this helper started. The proxy answers OK before anything else goes.
function originOf(client, port) {
  try {
    let inode;
    for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
      let text = "";
      try { text = fs.readFileSync(table, "latin1"); } catch { continue; }
      for (const line of text.split("\\n").slice(1)) {
        const fields = line.trim().split(/\\s+/);
        if (fields.length < 10) continue;
        const portOf = (address) => parseInt(address.slice(address.lastIndexOf(":") + 1), 16);
        if (portOf(fields[1]) === client.remotePort && portOf(fields[2]) === port) inode = fields[9];
      }
    }
    if (!inode) return {};
    const wanted = "socket:[" + inode + "]";
    let holder;
    for (const name of fs.readdirSync("/proc")) {
      if (!/^[0-9]+$/.test(name) || Number(name) === process.pid || holder) continue;
      try { for (const fd of fs.readdirSync("/proc/" + name + "/fd")) { try { if (fs.readlinkSync("/proc/" + name + "/fd/" + fd) === wanted) { holder = Number(name); break; } } catch {} } } catch {}
    }
    if (!holder) return {};
    const cut = (text) => text.length > 1000 ? text.slice(0, 999) + "…" : text;
    let program = "";
    try { program = cut(fs.readFileSync("/proc/" + holder + "/cmdline", "utf8").split("\\0").filter(Boolean).join(" ")); } catch {}
    const started = new Map();
    for (const entry of commands.values()) started.set(entry.child.pid, entry.command);
    for (let pid = holder, hops = 0; pid > 1 && hops < 256; hops++) {
      if (started.has(pid)) return { command: cut(started.get(pid)), process: program };
      const stat = fs.readFileSync("/proc/" + pid + "/stat", "latin1");
      pid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    }
    return { process: program };
  } catch { return {}; }
}
function startRelays(ready) {
  const spec = process.env.HARNESS_NETWORK_RELAY;
  if (!spec) return ready();
  const net = require("node:net");
  const { socket, token, listeners } = JSON.parse(spec);
  let waiting = listeners.length;
  for (const { port, connect } of listeners) {
    const server = net.createServer((client) => {
      const origin = originOf(client, port);
      const upstream = net.connect(socket);
      client.on("error", () => upstream.destroy());
      upstream.on("error", () => client.destroy());
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
      // Until the head ends (the proxy's OK, then a loopback grant's CONNECT reply), nothing is piped.
      const awaitHead = (ended, then) => {
        let head = Buffer.alloc(0);
        const onHead = (chunk) => {
          head = Buffer.concat([head, chunk]);
          const end = head.indexOf(ended);
          if (end === -1) { if (head.length > 16384) client.destroy(); return; }
          upstream.off("data", onHead);
          then(head.subarray(0, end).toString("latin1"), head.subarray(end + ended.length));
        };
        upstream.on("data", onHead);
      };
      const pipeBoth = (rest) => { if (rest.length > 0) client.write(rest); client.pipe(upstream); upstream.pipe(client); };
      upstream.write("HARNESS-RELAY " + token + " " + Buffer.from(JSON.stringify(origin)).toString("base64") + "\\n");
      awaitHead("\\n", (line) => {
        if (line !== "OK") { process.stderr.write(line.split("\\r")[0] + "\\n"); return client.destroy(); }
        if (!connect) return pipeBoth(Buffer.alloc(0));
        upstream.write("CONNECT " + connect + " HTTP/1.1\\r\\nHost: " + connect + "\\r\\n\\r\\n");
        awaitHead("\\r\\n\\r\\n", (reply, rest) => {
          if (!/^HTTP\\/1\\.[01] 200 /.test(reply)) { process.stderr.write(reply + "\\n"); return client.destroy(); }
          pipeBoth(rest);
        });
      });
    });
    server.on("error", (error) => { process.stderr.write("the network relay cannot listen on 127.0.0.1:" + port + ": " + error.message + "\\n"); process.exit(1); });
    server.listen(port, "127.0.0.1", () => { if (--waiting === 0) ready(); });
  }
}
let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.pause();
startRelays(() => process.stdin.resume().on("data", (text) => {
  pending += text;
  for (let end = pending.indexOf("\\n"); end !== -1; end = pending.indexOf("\\n")) {
    const line = pending.slice(0, end);
    pending = pending.slice(end + 1);
    handle(JSON.parse(line));
  }
}));
process.stdin.on("end", () => {
  for (const { child } of commands.values()) signalAll(treeOf(child.pid), "SIGKILL");
  signalAll(markedProcesses(), "SIGKILL");
  process.exit(0);
});
`;
}

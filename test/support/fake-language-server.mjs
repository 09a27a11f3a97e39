// A tiny language server for tests of declared servers: answers `initialize` and `shutdown`, and
// after each didOpen or didChange publishes one error on line 1 per line of the text that holds
// "BAD" (with the version it checked, as pyright does). Writes the file FAKE_LSP_MARKER, when set,
// once it has started, so a test can tell it never ran; with FAKE_LSP_CRASH_ONCE (a file's path),
// the first one started exits on its first change, and creates that file so the next one does not.
// FAKE_LSP_FLOOD=many answers each change with a flood of publishes; =huge with an endless message.
import { appendFileSync, existsSync, writeFileSync } from "node:fs";

if (process.env.FAKE_LSP_MARKER) appendFileSync(process.env.FAKE_LSP_MARKER, "started\n");
const crashOnce = process.env.FAKE_LSP_CRASH_ONCE;
const crashes = crashOnce !== undefined && !existsSync(crashOnce);
if (crashes) writeFileSync(crashOnce, "crashed\n");
let buffer = Buffer.alloc(0);
const send = (message) => {
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }));
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
};
const publish = (uri, version, text) =>
  send({
    method: "textDocument/publishDiagnostics",
    params: {
      uri,
      version,
      diagnostics: text.split("\n").flatMap((line, index) =>
        line.includes("BAD")
          ? [
              {
                range: { start: { line: index, character: 0 }, end: { line: index, character: 3 } },
                severity: 1,
                message: "BAD is not allowed",
              },
            ]
          : [],
      ),
    },
  });
process.stdin.on("data", (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const end = buffer.indexOf("\r\n\r\n");
    if (end < 0) return;
    const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, end).toString())[1]);
    if (buffer.length < end + 4 + length) return;
    const message = JSON.parse(buffer.subarray(end + 4, end + 4 + length).toString());
    buffer = buffer.subarray(end + 4 + length);
    if (message.method === "initialize") send({ id: message.id, result: { capabilities: { textDocumentSync: 1 } } });
    else if (message.method === "shutdown") send({ id: message.id, result: null });
    else if (message.method === "exit") process.exit(0);
    else if (message.method === "textDocument/didOpen") {
      const { uri, version, text } = message.params.textDocument;
      publish(uri, version, text);
    } else if (message.method === "textDocument/didChange" && crashes) process.exit(3);
    else if (message.method === "textDocument/didChange") {
      const { uri, version } = message.params.textDocument;
      const text = message.params.contentChanges.at(-1).text;
      if (process.env.FAKE_LSP_FLOOD === "huge") {
        // A header announcing a 64 MB message, then bytes without end: the client must cut it off.
        process.stdout.write(`Content-Length: ${64 * 1024 * 1024}\r\n\r\n`);
        const junk = "x".repeat(1024 * 1024);
        for (let i = 0; i < 20; i++) process.stdout.write(junk);
      } else if (process.env.FAKE_LSP_FLOOD === "many") {
        // Thousands of notifications for other files, then this file's list with 20,000 entries.
        for (let i = 0; i < 3000; i++)
          send({ method: "textDocument/publishDiagnostics", params: { uri: `${uri}-${i}.fk`, diagnostics: [] } });
        publish(uri, version, Array.from({ length: 20000 }, () => text).join("\n"));
      } else publish(uri, version, text);
    }
  }
});

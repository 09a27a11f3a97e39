// Downloading a local model: the real downloader against an HTTP server on 127.0.0.1 that serves
// a tiny GGUF, honours Range requests and can drop the connection halfway.
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { userMessage } from "../../src/core/messages.ts";
import { ProviderError } from "../../src/core/provider.ts";
import {
  type DownloadProgress,
  downloadFile,
  formatProgress,
  resolveModelSource,
} from "../../src/providers/local/local-download.ts";
import { createLocalProvider } from "../../src/providers/local/local-llama.ts";
import { formatBytes } from "../../src/shared/helpers.ts";
import { tinyModelGguf } from "../support/gguf/tiny-model.ts";
import { tempDir } from "../support/helpers.ts";

const MODEL = tinyModelGguf({ reply: ["Downloaded", " and", " loaded."] });
/** The first request for /cut.gguf gets this many bytes, then the connection drops. */
const CUT_AT = 100_000;

let server: Server;
let base: string;
const ranges: Array<string | undefined> = [];
let cutsLeft = 0;

before(async () => {
  server = createServer((request, response) => {
    ranges.push(request.headers.range);
    if (!request.url?.endsWith(".gguf") || request.url.includes("missing")) {
      response.writeHead(404).end("not found");
      return;
    }
    const start = Number(/^bytes=(\d+)-$/.exec(request.headers.range ?? "")?.[1] ?? 0);
    const body = MODEL.subarray(start);
    response.writeHead(start > 0 ? 206 : 200, {
      "content-length": body.length,
      "content-type": "application/octet-stream",
      ...(start > 0 ? { "content-range": `bytes ${start}-${MODEL.length - 1}/${MODEL.length}` } : {}),
    });
    if (request.url.includes("cut") && cutsLeft > 0) {
      cutsLeft--;
      response.write(body.subarray(0, CUT_AT), () => response.socket?.destroy());
      return;
    }
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

test("an interrupted download leaves a .partial file that the next try resumes with a Range request", async () => {
  const folder = tempDir();
  const path = join(folder, "cut.gguf");
  ranges.length = 0;
  cutsLeft = 1;
  const first: DownloadProgress[] = [];
  const failure = await downloadFile(`${base}/cut.gguf`, path, {
    signal: new AbortController().signal,
    onProgress: (p) => first.push(p),
  }).then(
    () => assert.fail("the first download should break off"),
    (error: unknown) => error,
  );
  assert.ok(failure instanceof ProviderError && failure.kind === "network", String(failure));
  const kept = statSync(`${path}.partial`).size;
  assert.ok(kept > 0 && kept <= CUT_AT, `kept ${kept} bytes`); // what was in flight when the socket died is lost
  assert.equal(
    failure.message,
    `the model download from ${base}/cut.gguf broke off after ${formatBytes(kept)} of ${formatBytes(MODEL.length)} (terminated); run again to resume it`,
  );
  assert.equal(existsSync(path), false, "no half file under the real name");
  assert.ok(first.length > 0 && first.every((p) => p.total === MODEL.length && p.resumedFrom === 0));

  const second: DownloadProgress[] = [];
  await downloadFile(`${base}/cut.gguf`, path, {
    signal: new AbortController().signal,
    onProgress: (p) => second.push(p),
  });
  assert.deepEqual(ranges, [undefined, `bytes=${kept}-`]);
  assert.deepEqual(readFileSync(path), MODEL);
  assert.equal(existsSync(`${path}.partial`), false);
  assert.ok(second.every((p) => p.resumedFrom === kept && p.total === MODEL.length));
  assert.equal(second.at(-1)?.received, MODEL.length);
  const received = second.map((p) => p.received);
  assert.deepEqual(
    received,
    [...received].sort((a, b) => a - b),
    "progress only grows",
  );
});

test("a model URL is downloaded once into the models folder, then loaded and run", async () => {
  const modelsDir = join(tempDir(), "models");
  const provider = createLocalProvider({
    name: "local",
    api: "local",
    model: `${base}/tiny.gguf`,
    baseUrl: "",
    modelsDir,
  });
  try {
    let text = "";
    for await (const event of provider.stream(
      { system: "", messages: [userMessage("hi")], tools: [] },
      new AbortController().signal,
    )) {
      if (event.type === "done")
        text = event.message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
    }
    assert.equal(text, "Downloaded and loaded.");
    assert.deepEqual(readFileSync(join(modelsDir, "tiny.gguf")), MODEL);
  } finally {
    await provider.dispose();
  }
});

test("a model that is not on the server is a not_found error naming the URL", async () => {
  const error = await downloadFile(`${base}/missing.gguf`, join(tempDir(), "missing.gguf"), {
    signal: new AbortController().signal,
  }).then(
    () => assert.fail("should fail"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ProviderError);
  assert.equal(error.kind, "not_found");
  assert.equal(error.message, `could not download the model from ${base}/missing.gguf: HTTP 404`);
});

test("model references resolve to a URL and a file under the models folder; paths stay paths", () => {
  assert.deepEqual(
    resolveModelSource("hf:unsloth/Qwen3-4B-Instruct-2507-GGUF/Qwen3-4B-Instruct-2507-Q4_K_M.gguf", "/h/models", "/w"),
    {
      path: "/h/models/unsloth_Qwen3-4B-Instruct-2507-GGUF_Qwen3-4B-Instruct-2507-Q4_K_M.gguf",
      url: "https://huggingface.co/unsloth/Qwen3-4B-Instruct-2507-GGUF/resolve/main/Qwen3-4B-Instruct-2507-Q4_K_M.gguf",
    },
  );
  assert.deepEqual(resolveModelSource("https://example.test/files/my%20model.gguf", "/h/models", "/w"), {
    path: "/h/models/my_model.gguf",
    url: "https://example.test/files/my%20model.gguf",
  });
  assert.deepEqual(resolveModelSource("models/small.gguf", "/h/models", "/w"), { path: "/w/models/small.gguf" });
  assert.throws(
    () => resolveModelSource("hf:just-a-user", "/h/models", "/w"),
    /write it as hf:<user>\/<repo>\/<file>\.gguf/,
  );
});

test("the progress line shows percent, size, speed and time left", () => {
  assert.equal(
    formatProgress("model.gguf", {
      received: 1_000_000_000,
      total: 2_500_000_000,
      resumedFrom: 0,
      bytesPerSecond: 12_300_000,
    }),
    "model.gguf  40% 1.0 GB / 2.5 GB  12.3 MB/s  2m02s left",
  );
  assert.equal(
    formatProgress("model.gguf", { received: 5_000, resumedFrom: 0, bytesPerSecond: 900 }),
    "model.gguf  5.0 KB  900 B/s",
  );
});

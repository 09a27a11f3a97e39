// A throwaway redis-server on 127.0.0.1 for the queue tests: a free port, no persistence, killed
// when the test ends.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { sign } from "../../src/batch/queue/queue-signature.ts";
import { TEST_QUEUE_KEY } from "./helpers.ts";
import { killAtTestEnd } from "./teardown.ts";

/** Longest wait for redis-server to accept connections. */
const REDIS_START_MS = 10_000;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts redis-server (with `extraArgs`, such as `--requirepass x`) and resolves once it is ready;
 * on `port` (a restart of one that was stopped: it comes back empty) or a free one.
 */
export async function startRedis(
  extraArgs: string[] = [],
  port?: number,
): Promise<{ port: number; process: ChildProcess }> {
  port ??= await freePort();
  const child = killAtTestEnd(
    spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...extraArgs],
      { stdio: ["ignore", "pipe", "pipe"] },
    ),
  );
  await new Promise<void>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(
      () => reject(new Error(`redis-server did not start within ${REDIS_START_MS} ms:\n${output}`)),
      REDIS_START_MS,
    );
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (!output.includes("Ready to accept connections")) return;
      clearTimeout(timer);
      resolve();
    });
    child.on("exit", (code) => reject(new Error(`redis-server exited ${code}:\n${output}`)));
  });
  return { port, process: child };
}

/**
 * A job as a batch holding the tests' queue key (TEST_QUEUE_KEY, which cleanEnv gives every
 * batch and worker) signs it: the attack tests of a worker's job policy are of an insider with
 * the key, whose jobs pass the signature and meet the policy.
 */
export function signedJob(jobId: string, data: object): object {
  return sign(Buffer.from(TEST_QUEUE_KEY), "job", jobId, data);
}

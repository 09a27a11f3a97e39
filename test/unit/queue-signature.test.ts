// The queue's signatures (batch/queue/queue-signature.ts): the same value verifies whatever order
// its keys come back from Redis in; a changed value, another job's id, another key or no
// signature does not.
import assert from "node:assert/strict";
import { test } from "node:test";
import { sign, verify } from "../../src/batch/queue/queue-signature.ts";

const KEY = Buffer.from("unit-queue-key-0123456789abcdef");

test("a signed value verifies in any key order, and nothing changed, moved or re-keyed does", () => {
  const signed = sign(KEY, "result", "run.task.1", { status: "ok", tokens: { output: 2, input: 1 }, cost: 0.5 });
  const reordered = JSON.parse(
    JSON.stringify({ tokens: { input: 1, output: 2 }, cost: 0.5, sig: signed.sig, status: "ok" }),
  );
  assert.deepEqual(verify(KEY, "result", "run.task.1", reordered), {
    value: { tokens: { input: 1, output: 2 }, cost: 0.5, status: "ok" },
  });
  const refusals = [
    verify(KEY, "result", "run.task.1", { ...signed, cost: -1 }),
    verify(KEY, "result", "run.other.1", signed),
    verify(KEY, "job", "run.task.1", signed),
    verify(Buffer.from("another-key-0123456789abcdef"), "result", "run.task.1", signed),
    verify(KEY, "result", "run.task.1", { ...signed, sig: "zz" }),
  ];
  for (const refusal of refusals) assert.match((refusal as { refused: string }).refused, /signature is not one made/);
  const { sig: _, ...unsigned } = signed;
  assert.deepEqual(verify(KEY, "result", "run.task.1", unsigned), { refused: "the result is unsigned" });
  assert.deepEqual(verify(KEY, "job", "j", "text"), { refused: "the job is not an object" });
});

test("a job's task environment is signed: its rootfs or image changed, added or removed does not verify", () => {
  const task = { id: "t", prompt: "p", environment: { rootfs: "/srv/envs/py311", workdir: "/testbed" } };
  const signed = sign(KEY, "job", "run.t.1", { runId: "run", attempt: 1, task, request: {} });
  assert.ok("value" in verify(KEY, "job", "run.t.1", signed));
  const { environment: _, ...bare } = task;
  for (const changed of [
    { ...task, environment: { ...task.environment, rootfs: "/" } },
    { ...task, environment: { ...task.environment, workdir: "/root" } },
    { ...task, environment: { image: "localhost/x:1" } },
    bare,
  ])
    assert.match(
      (verify(KEY, "job", "run.t.1", { ...signed, task: changed }) as { refused: string }).refused,
      /signature is not one made/,
    );
});

// `harness serve` as its clients see it: the built CLI holding a session against the fake LLM,
// driven over HTTP with the client library. Two clients watch one session and race to answer its
// question (the first wins, both see it answered); a stream read again from an event id gets
// exactly what followed; a model switch and an undo come through as events.
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ServeClientError } from "../../src/server/serve-client.ts";
import { fakeServerPerTest, tempDir } from "../support/helpers.ts";
import { startServe, watchUntil } from "../support/serve.ts";

const serve = fakeServerPerTest();

test("one session, two watchers: a question answered once, a prompt, resume by event id, model switch, undo", async () => {
  const fake = await serve([
    {
      reply: {
        text: "Writing.",
        toolCalls: [{ id: "call_w", name: "write_file", arguments: { path: "made.txt", content: "hi\n" } }],
      },
    },
    { reply: { text: "Wrote **made.txt**." } },
    { reply: { text: "Second answer." } },
  ]);
  const served = await startServe(fake);
  const { client } = served;
  // The token file: the server's address and token, readable only by its owner.
  const serveFile = join(served.env.HARNESS_HOME as string, "serve.json");
  assert.equal(statSync(serveFile).mode & 0o777, 0o600);
  assert.equal(JSON.parse(readFileSync(serveFile, "utf8")).token, served.token);

  const cwd = tempDir();
  writeFileSync(join(cwd, "kept.txt"), "kept\n");
  const session = await client.createSession({ cwd });
  assert.equal(session.approve, "ask");
  assert.deepEqual(
    (await client.listSessions()).map((s) => s.id),
    [session.id],
  );

  // Two clients watch; the prompt's question reaches both.
  const questionSeen = (event: { type: string }) => event.type === "question";
  const first = watchUntil(client, session.id, questionSeen);
  const second = watchUntil(client, session.id, questionSeen);
  await client.prompt(session.id, "make a file");
  const [seenA, seenB] = await Promise.all([first, second]);
  const question = seenA.at(-1)!.event as { type: "question"; questionId: string; summary: string; diff?: string };
  assert.equal(question.questionId, (seenB.at(-1)!.event as typeof question).questionId);
  assert.match(question.summary, /made\.txt/);
  assert.match(question.diff ?? "", /\+hi/);
  // A second prompt while one runs is refused.
  await assert.rejects(client.prompt(session.id, "again"), (error: ServeClientError) => error.status === 409);

  // Both answer at once: exactly one wins, the other is told it was answered.
  const answers = await Promise.allSettled([
    client.answer(session.id, question.questionId, "yes"),
    client.answer(session.id, question.questionId, "no"),
  ]);
  assert.equal(answers.filter((a) => a.status === "fulfilled").length, 1);
  const refused = answers.find((a) => a.status === "rejected") as PromiseRejectedResult;
  assert.equal((refused.reason as ServeClientError).status, 409);

  const all = await watchUntil(client, session.id, (event) => event.type === "done");
  const answered = all.filter((item) => item.event.type === "question_answered");
  assert.equal(answered.length, 1);
  assert.ok(existsSync(join(cwd, "made.txt")) === ((answered[0].event as { answer: string }).answer === "yes"));
  assert.equal((all.at(-1)!.event as { answer: string }).answer, "Wrote **made.txt**.");
  // Ids are consecutive from 1: nothing missing.
  // Consecutive ids (from above any an earlier run of the server gave: docs/serve.md).
  assert.deepEqual(
    all.map((item) => item.id),
    all.map((_, index) => (all[0].id as number) + index),
  );

  // Resume from the middle: exactly the events after that id, the same ones.
  const middle = all[5].id as number;
  const resumed = await watchUntil(client, session.id, (event) => event.type === "done", { after: middle });
  assert.deepEqual(resumed, all.slice(6));

  // A second prompt; then the model switch and the undo of the turn that made the file.
  const lastId = all.at(-1)?.id as number;
  await client.prompt(session.id, "and now?");
  const second2 = await watchUntil(client, session.id, (event) => event.type === "done", { after: lastId });
  assert.equal((second2.at(-1)!.event as { answer: string }).answer, "Second answer.");
  const switched = await client.switchModel(session.id, "other-model");
  assert.equal(switched.model, "other-model");
  await client.undo(session.id, 2);
  const tail = await watchUntil(client, session.id, (event) => event.type === "undone", {
    after: second2.at(-1)?.id as number,
  });
  assert.deepEqual(
    tail.map((item) => item.event.type),
    ["model_changed", "undone"],
  );
  if ((answered[0].event as { answer: string }).answer === "yes") {
    assert.deepEqual((tail[1].event as { files: string[] }).files, ["made.txt"]);
    assert.equal(existsSync(join(cwd, "made.txt")), false);
  }
  assert.equal(readFileSync(join(cwd, "kept.txt"), "utf8"), "kept\n");

  // Interrupting when nothing runs says so.
  assert.equal(await client.interrupt(session.id), false);
  // A wider approval mode than the server's is refused.
  await assert.rejects(client.createSession({ cwd, approve: "all" }), (error: ServeClientError) =>
    /wider than this server allows/.test(error.message),
  );
  served.child.kill("SIGTERM");
  await new Promise((resolve) => served.child.once("close", resolve));
  assert.equal(existsSync(serveFile), false, "the token file goes with the server");
});

// The trajectory converter (src/batch/trajectory.ts): our neutral messages as mini-swe-agent's
// `*.traj.json` messages, and where each attempt's file goes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { taskError } from "../../src/batch/task-result.ts";
import { toTrajectory, trajectoriesOf, trajectoryPathOf } from "../../src/batch/trajectory.ts";

const AT = "2026-12-05T23:00:00.000Z";

test("trajectory: images, reasoning, a compaction and an unpriced reply map to OpenAI chat messages", () => {
  const result = {
    ...taskError(
      "t",
      { runId: "r1", provider: null, model: null, api: null, thinking: null, harnessVersion: "0" },
      2,
      "boom",
    ),
  };
  const trajectory = toTrajectory({
    messages: [
      {
        at: AT,
        message: {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "image", mediaType: "image/png", data: "AAA" },
          ],
        },
      },
      {
        at: AT,
        message: {
          role: "assistant",
          content: [
            { type: "thinking", text: "hm" },
            { type: "text", text: "ok" },
          ],
          stopReason: "stop",
          model: "m",
          usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
        },
      },
      { at: AT, message: { role: "user", content: [{ type: "text", text: "summary" }] }, isCompaction: true },
    ],
    result,
    submission: "",
    harnessVersion: "9.9.9",
    price: () => undefined,
  });
  const [user, reply, summary, exit] = trajectory.messages;
  assert.deepEqual(user?.content, [
    { type: "text", text: "look" },
    { type: "image_url", image_url: { url: "data:image/png;base64,AAA" } },
  ]);
  assert.equal(user?.extra.timestamp, Date.parse(AT) / 1000);
  assert.equal(reply?.content, "ok");
  assert.equal(reply?.reasoning_content, "hm");
  assert.equal("tool_calls" in (reply ?? {}), false, "no tool_calls key on a reply without calls");
  assert.equal("cost" in (reply?.extra ?? {}), false, "no cost where no price is known");
  assert.deepEqual(reply?.extra.actions, []);
  assert.equal(summary?.extra.compaction, true);
  assert.deepEqual(exit, { role: "exit", content: "boom", extra: { exit_status: "error", submission: "" } });
  assert.deepEqual(trajectory.info.model_stats, { instance_cost: 0, api_calls: 0 });
  assert.equal(trajectory.info.mini_version, "harness 9.9.9");
  assert.equal(trajectory.info.harness.attempt, 2);
});

test("trajectory paths: per run, task, attempt and copy; ids made file names", () => {
  assert.equal(trajectoriesOf("/o/results.jsonl"), "/o/results.trajectories");
  assert.equal(trajectoryPathOf("/t", "r1", "a/b", 1), "/t/r1/a_b.1.traj.json");
  assert.equal(trajectoryPathOf("/t", "r1", "a", 3, 2), "/t/r1/a.3.2.traj.json");
  assert.equal(trajectoryPathOf("/t", "../x", "..", 1), "/t/__x/_.1.traj.json");
});

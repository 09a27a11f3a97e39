// A plan's limits as its replies' headers report them (issue 43): Copilot's session, weekly and
// premium-request windows (`rem` percent remaining, `rst` the reset, as the VS Code Copilot
// extension reads them) said once per threshold, an unlimited entitlement never; ChatGPT's
// windows are covered end to end by test/cli/sign-in-usage.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { planLimitNotice } from "../../src/providers/sign-in/plan-limits.ts";

const now = Date.parse("2026-04-22T12:00:00Z");
const copilot = (values: Record<string, string>) => planLimitNotice("copilot", new Headers(values), now);

test("Copilot's limits from its headers: said once per threshold and window, unlimited never", () => {
  assert.equal(
    copilot({ "x-usage-ratelimit-session": "ent=0&ov=0.0&ovPerm=false&rem=99.6&rst=2026-04-22T14%3A30%3A56Z" }),
    undefined,
  );
  assert.equal(
    copilot({
      "x-usage-ratelimit-session": "ent=0&ov=0.0&ovPerm=false&rem=20.0&rst=2026-04-22T14%3A00%3A00Z",
      "x-usage-ratelimit-weekly": "ent=0&ov=0.0&ovPerm=false&rem=95.9&rst=2026-04-27T00%3A00%3A00Z",
    }),
    "Copilot plan: 80% of the session limit used, resets in 2 hours",
  );
  // The same threshold again: nothing; the next one and the premium quota: one line.
  assert.equal(copilot({ "x-usage-ratelimit-session": "rem=18&rst=2026-04-22T14%3A00%3A00Z" }), undefined);
  assert.equal(
    copilot({
      "x-usage-ratelimit-session": "rem=9.5&rst=2026-04-22T14%3A00%3A00Z",
      "x-quota-snapshot-premium_interactions": "ent=300&ov=0.0&ovPerm=false&rem=4&rst=2026-05-01T00%3A00%3A00Z",
    }),
    "Copilot plan: 91% of the session limit used, resets in 2 hours; 96% of the monthly premium requests used, resets in 9 days",
  );
  assert.equal(copilot({ "x-quota-snapshot-premium_models": "ent=-1&rem=0&rst=" }), undefined, "unlimited");
  assert.equal(copilot({ "x-usage-ratelimit-weekly": "rem=not-a-number" }), undefined, "a bad value is no notice");
});

// Hook events are records (src/hooks/hook-event.ts), as wire APIs are: each event named in the
// settings has one, the hooks page's table is made from them, and no other file of src/ branches
// on an event's name, so a new event is one record and its call site.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { HOOK_EVENT_RECORDS } from "../../src/hooks/hook-events.ts";
import { HOOK_EVENT_SUBJECTS, HOOK_EVENTS } from "../../src/settings/hook-section.ts";
import { ROOT } from "../support/helpers.ts";

/** The files that may spell an event's name: the settings' list of names and the records. */
const NAME_HOMES = [
  "src/settings/hook-section.ts",
  "src/hooks/tool-hook-events.ts",
  "src/hooks/session-hook-events.ts",
  // The done event's `blockedBy` value is the event's name (core cannot import hooks/).
  "src/core/event-schema.ts",
];

const MATCHER_WORDS: Record<string, string> = {
  tool: "the tool's names",
  source: "`startup` or `resume`",
  reason: "the reason",
  notification_type: "`notification_type`",
  trigger: "`manual` or `auto`",
  agent_type: "`agent_type`",
  nothing: "not consulted",
};

/** The hooks page's table of events, made from the records. */
function eventTable(): string {
  const rows = HOOK_EVENTS.map((name) => {
    const record = HOOK_EVENT_RECORDS[name];
    const cells = [
      `\`${name}\``,
      record.when,
      MATCHER_WORDS[HOOK_EVENT_SUBJECTS[name].matcher],
      record.exit2,
      record.answers,
    ];
    return `| ${cells.join(" | ")} |`;
  });
  return [
    "| event | when it runs | its matcher sees | exit 2 | an answer on exit 0 |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}

test("every hook event the settings name has one record, under its own name", () => {
  assert.deepEqual(Object.keys(HOOK_EVENT_RECORDS).sort(), [...HOOK_EVENTS].sort());
  for (const [name, record] of Object.entries(HOOK_EVENT_RECORDS)) {
    assert.equal(record.name, name);
    for (const field of ["when", "exit2", "answers"] as const) assert.ok(record[field].length > 0, `${name}.${field}`);
  }
});

test("no file of src/ but the records spells an event's name", () => {
  const pattern = new RegExp(`["'\`](${HOOK_EVENTS.join("|")})["'\`]`);
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (path.endsWith(".ts") && !NAME_HOMES.includes(relative(ROOT, path))) {
        const lines = readFileSync(path, "utf8").split("\n");
        lines.forEach((line, index) => {
          if (pattern.test(line) && !/^\s*(\/\/|\*|\/\*)/.test(line))
            found.push(`${relative(ROOT, path)}:${index + 1}: ${line.trim()}`);
        });
      }
    }
  };
  walk(join(ROOT, "src"));
  assert.deepEqual(found, []);
});

test("the hooks page (docs/hooks.md) has the table of events made from the records", () => {
  const readme = readFileSync(join(ROOT, "docs", "hooks.md"), "utf8");
  const table = eventTable();
  assert.ok(readme.includes(table), `the Hooks section has this table, made from the records:\n${table}`);
});

// Writes docs/events.schema.json from the core's zod schema (the one source of the event
// stream's shape). Run after changing src/core/event-schema.ts:
//   node --import tsx scripts/write-event-schema.ts
// test/cli/events-stream-json.test.ts fails while the file and the schema differ.
import { writeFileSync } from "node:fs";
import { z } from "zod";
import { agentEventSchema, EVENT_SCHEMA_VERSION } from "../src/core/event-schema.ts";

const schema = {
  title: `harness agent event (schemaVersion ${EVENT_SCHEMA_VERSION})`,
  ...z.toJSONSchema(agentEventSchema, { target: "draft-2020-12" }),
};
writeFileSync(new URL("../docs/events.schema.json", import.meta.url), `${JSON.stringify(schema, null, 2)}\n`);

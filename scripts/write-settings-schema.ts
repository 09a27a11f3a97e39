// Writes docs/settings.schema.json, docs/config.schema.json and docs/mcp.schema.json, the JSON
// Schemas editors check the files against, from the readers' zod schemas (src/settings/settings-file.ts,
// src/settings/config-file.ts, src/settings/mcp-servers.ts: the one source of each file's shape).
// Run after changing a section:
//   node --import tsx scripts/write-settings-schema.ts
// test/unit/settings-schema.test.ts fails while the file and the schemas differ.
import { writeFileSync } from "node:fs";
import { configJsonSchemas } from "../src/settings/config-file.ts";
import { settingsJsonSchema } from "../src/settings/settings-file.ts";

const write = (name: string, schema: unknown) =>
  writeFileSync(new URL(`../docs/${name}`, import.meta.url), `${JSON.stringify(schema, null, 2)}\n`);
write("settings.schema.json", settingsJsonSchema());
write("config.schema.json", configJsonSchemas().config);
write("mcp.schema.json", configJsonSchemas().mcp);

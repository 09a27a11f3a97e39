// Writes docs/settings.schema.json, the JSON Schema editors check settings.json against, from
// the settings reader's zod schemas (src/settings/settings-file.ts, the one source of its shape).
// Run after changing a section:
//   node --import tsx scripts/write-settings-schema.ts
// test/settings-schema.test.ts fails while the file and the schemas differ.
import { writeFileSync } from "node:fs";
import { settingsJsonSchema } from "../src/settings/settings-file.ts";

writeFileSync(
  new URL("../docs/settings.schema.json", import.meta.url),
  `${JSON.stringify(settingsJsonSchema(), null, 2)}\n`,
);

/**
 * Version of the event stream's shape, carried by the `start` event as `schemaVersion` (see
 * event-schema.ts). It has a module of its own so the loop does not build the whole zod schema at
 * start-up, and so the schema and the event types (events.ts, inferred from it) import it without
 * importing each other.
 */
export const EVENT_SCHEMA_VERSION = 1;

// Tool schemas every function-calling API accepts. We send the intersection of what OpenAI (strict
// mode included), Anthropic and Gemini take, because Gemini (directly, or behind a router or an
// OpenAI-compatible proxy) rejects the whole request, so every turn, on one keyword it does not know.
// The original schema stays with the tool and still validates the arguments the model sends back, so
// a bound made looser here (an exclusive bound widened to an inclusive one) is still enforced.
//
// The rules and where they come from:
// - Gemini's Schema is "a select subset of an OpenAPI 3.0 schema object": type (one, not a list),
//   format, title, description, nullable, default, items, minItems, maxItems, enum (strings),
//   properties, required, minProperties, maxProperties, minLength, maxLength, pattern, example,
//   anyOf, propertyOrdering, minimum, maximum. Anything else fails with
//   `400 INVALID_ARGUMENT: Unknown name "exclusiveMinimum"` (or "$schema", "additionalProperties", ...).
//   https://ai.google.dev/api/caching#Schema ; googleapis/js-genai `types.Schema`;
//   https://cloud.google.com/vertex-ai/docs/reference/rest/v1/Schema
// - Gemini's Developer API takes only the formats "enum" and "date-time" (Firebase AI `SchemaShared`),
//   and `properties`/`required` only on objects ("only allowed for OBJECT type", anomalyco/opencode#11888).
// - OpenAI strict mode supports, beyond type/properties/required/items/enum/anyOf/description: string
//   pattern and format, number minimum/maximum (and exclusive ones, multipleOf), array minItems/maxItems;
//   not minLength/maxLength, minProperties/maxProperties, uniqueItems, default, patternProperties.
//   https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
// - Anthropic takes any JSON Schema for `input_schema`, so it adds no limit of its own.
// - Failures reported by other harnesses: zod's `.positive()` → exclusiveMinimum (ahmadrosid/nakama#292,
//   pizza-bot-app/pizza-bot#62, hotovo/aider-desk#827, pollinations/pollinations#6307,
//   Mirrowel/LLM-API-Key-Proxy#86, pydantic/pydantic-ai#1341, weave-os/router#809); MCP servers'
//   additionalProperties (nanbingxyz/5ire#42); type lists such as ["object","null"] (anomalyco/opencode#43495).
//
// What happens to each keyword: kept; made portable (exclusive bounds → inclusive, integers ±1; a type
// list → its one non-null type or an anyOf; oneOf → anyOf; allOf → merged; $ref → inlined; const and
// non-string enums → string enums or a note); or dropped, and where it carries meaning the model can
// use (a default, a length limit, a format) its value is kept as a short note in the description.

/** A JSON Schema object, loosely typed: schemas from MCP servers are whatever their authors wrote. */
export type JsonSchema = Record<string, unknown>;

/** zod's `.int()` emits these as limits; they bound nothing and some APIs reject them. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;
/** How deep $ref chains are followed; a recursive schema ends there as a plain object. */
const MAX_REF_DEPTH = 8;
/** The only format every API accepts. */
const PORTABLE_FORMATS = new Set(["date-time"]);
/** Types the APIs share (Gemini has no `null` outside nullable). */
const TYPES = new Set(["string", "number", "integer", "boolean", "array", "object"]);
/** Keywords a branch of a type list does not repeat: the parent keeps them. */
const NOT_PER_BRANCH = {
  anyOf: undefined,
  oneOf: undefined,
  description: undefined,
  title: undefined,
  default: undefined,
};
/** Dropped keywords whose value the model can still use, and how the note reads. */
const NOTED: Record<string, string> = {
  default: "default",
  minLength: "min length",
  maxLength: "max length",
  minProperties: "min properties",
  maxProperties: "max properties",
  multipleOf: "multiple of",
  format: "format",
  uniqueItems: "unique items",
};

/**
 * Each schema's portable form, worked out once: a run hands the same tool schemas to every
 * request, and converting them again was a tenth of all a step allocated. Callers only serialise
 * the result, never change it.
 */
const portableForms = new WeakMap<JsonSchema, JsonSchema>();

/** The schema cut down to the portable subset, meaning kept where a portable form exists. */
export function portableSchema(schema: JsonSchema): JsonSchema {
  let portable = portableForms.get(schema);
  if (!portable) {
    const definitions = { ...asSchema(schema.definitions), ...asSchema(schema.$defs) };
    const converted = convert(schema, definitions, 0);
    // The top level is always an object of named parameters.
    portable = { ...converted, type: "object", properties: converted.properties ?? {} };
    portableForms.set(schema, portable);
  }
  return portable;
}

function convert(input: JsonSchema, definitions: JsonSchema, depth: number): JsonSchema {
  const schema = flatten(input, definitions, depth);
  const out: JsonSchema = {};
  /** Notes for the description, by label: a label the description already names is not repeated. */
  const notes = new Map<string, string>();
  const types = typesOf(schema);
  if (types.length === 1) out.type = types[0];
  else if (types.length > 1)
    out.anyOf = types.map((type) => convert({ ...schema, type, ...NOT_PER_BRANCH }, definitions, depth + 1));
  const type = types.length === 1 ? types[0] : undefined;

  for (const [key, value] of Object.entries(schema)) {
    if (value === undefined) continue;
    switch (key) {
      case "description":
      case "title":
      case "pattern":
        if (typeof value === "string") out[key] = value;
        break;
      case "properties":
        if (type === "object" && isSchema(value)) {
          out.properties = Object.fromEntries(
            Object.entries(value).map(([name, property]) => [
              name,
              convert(asSchema(property), definitions, depth + 1),
            ]),
          );
        }
        break;
      case "required":
        if (type === "object" && Array.isArray(value))
          out.required = value.filter(
            (name) => typeof name === "string" && isSchema(schema.properties) && name in schema.properties,
          );
        break;
      case "items":
      case "prefixItems":
        if (type === "array") out.items = itemsOf(value, definitions, depth);
        break;
      case "minItems":
      case "maxItems":
        if (type === "array" && Number.isInteger(value)) out[key] = value;
        break;
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum":
        break; // below, together
      case "anyOf":
      case "oneOf":
        if (types.length <= 1 && Array.isArray(value)) Object.assign(out, unionOf(value, definitions, depth));
        break;
      case "enum":
      case "const": {
        const values = key === "const" ? [value] : Array.isArray(value) ? value : [];
        if (values.every((item) => typeof item === "string")) out.enum = values;
        else notes.set("one of", `one of ${values.map((item) => JSON.stringify(item)).join(", ")}`);
        break;
      }
      case "format":
        if (type !== "string" || typeof value !== "string") break; // int32, float...: nothing the model needs
        if (PORTABLE_FORMATS.has(value)) out.format = value;
        else notes.set("format", `format ${value}`);
        break;
      default:
        if (key in NOTED && isScalar(value) && value !== false)
          notes.set(NOTED[key], key === "uniqueItems" ? NOTED[key] : `${NOTED[key]} ${JSON.stringify(value)}`);
      // Everything else ($schema, $id, additionalProperties, not, if/then/else, patternProperties,
      // propertyNames, contains, examples, nullable, readOnly, ...) has no portable form: dropped.
    }
  }
  if (type === "integer" || type === "number") Object.assign(out, boundsOf(schema, type === "integer"));
  const description = typeof out.description === "string" ? out.description : "";
  const fresh = [...notes].filter(([label]) => !description.toLowerCase().includes(label)).map(([, note]) => note);
  if (fresh.length > 0) out.description = description ? `${description} (${fresh.join("; ")})` : fresh.join("; ");
  return out;
}

/** Inlines $ref (bounded) and merges allOf into the schema itself. */
function flatten(schema: JsonSchema, definitions: JsonSchema, depth: number): JsonSchema {
  let current = schema;
  if (typeof current.$ref === "string") {
    const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(current.$ref)?.[1];
    const target =
      name !== undefined && depth < MAX_REF_DEPTH
        ? asSchema(definitions[decodeURIComponent(name)])
        : { type: "object" };
    const { $ref: _ref, ...rest } = current;
    current = { ...target, ...rest };
  }
  if (Array.isArray(current.allOf)) {
    const { allOf, ...rest } = current;
    current = (allOf as unknown[]).reduce<JsonSchema>(
      (merged, part) => mergeSchemas(merged, flatten(asSchema(part), definitions, depth + 1)),
      rest,
    );
  }
  return current;
}

function mergeSchemas(into: JsonSchema, part: JsonSchema): JsonSchema {
  const merged = { ...part, ...into };
  if (isSchema(into.properties) || isSchema(part.properties))
    merged.properties = { ...asSchema(part.properties), ...asSchema(into.properties) };
  if (Array.isArray(into.required) || Array.isArray(part.required))
    merged.required = [...new Set([...asArray(part.required), ...asArray(into.required)])];
  return merged;
}

/** The schema's types, `null` left out (a value the model may omit needs no null), unknown names dropped. */
function typesOf(schema: JsonSchema): string[] {
  const raw = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  const types = raw.filter((type): type is string => typeof type === "string" && TYPES.has(type));
  if (types.length > 0) return types;
  // Untyped but shaped like an object or an array: say so, since `properties` need an object.
  if (isSchema(schema.properties)) return ["object"];
  if (schema.items !== undefined) return ["array"];
  return [];
}

function itemsOf(value: unknown, definitions: JsonSchema, depth: number): JsonSchema {
  if (!Array.isArray(value)) return convert(asSchema(value), definitions, depth + 1);
  // A tuple has no portable form; any of its element schemas is the closest.
  const items = value.map((item) => convert(asSchema(item), definitions, depth + 1));
  return items.length === 1 ? items[0] : { anyOf: items };
}

/** anyOf/oneOf without their null branches; a single branch left is merged into the parent. */
function unionOf(branches: unknown[], definitions: JsonSchema, depth: number): JsonSchema {
  const kept = branches.map(asSchema).filter((branch) => branch.type !== "null");
  if (kept.length === 0) return {};
  if (kept.length === 1) return convert(kept[0], definitions, depth + 1);
  return { anyOf: kept.map((branch) => convert(branch, definitions, depth + 1)) };
}

/** Inclusive bounds: an exclusive integer bound moves by one; ±MAX_SAFE_INTEGER bounds nothing. */
function boundsOf(schema: JsonSchema, isInteger: boolean): JsonSchema {
  const step = isInteger ? 1 : 0;
  const lows: number[] = [];
  const highs: number[] = [];
  if (typeof schema.minimum === "number") lows.push(schema.minimum + (schema.exclusiveMinimum === true ? step : 0));
  if (typeof schema.maximum === "number") highs.push(schema.maximum - (schema.exclusiveMaximum === true ? step : 0));
  if (typeof schema.exclusiveMinimum === "number") lows.push(schema.exclusiveMinimum + step);
  if (typeof schema.exclusiveMaximum === "number") highs.push(schema.exclusiveMaximum - step);
  const bounds: JsonSchema = {};
  const low = lows.length > 0 ? Math.max(...lows) : undefined;
  const high = highs.length > 0 ? Math.min(...highs) : undefined;
  if (low !== undefined && low > -UNBOUNDED) bounds.minimum = isInteger ? Math.ceil(low) : low;
  if (high !== undefined && high < UNBOUNDED) bounds.maximum = isInteger ? Math.floor(high) : high;
  return bounds;
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asSchema(value: unknown): JsonSchema {
  return isSchema(value) ? value : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function isScalar(value: unknown): boolean {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

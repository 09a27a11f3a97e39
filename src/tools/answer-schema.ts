// The shape a run's final answer must have (`--json-schema`, a batch task's `outputSchema`): the
// user's JSON Schema, checked once before anything is sent, and the validator of every answer.
//
// *Decision*: Ajv validates, not zod's `z.fromJSONSchema`. Ajv is the reference validator of JSON
// Schema (drafts 07 and 2020-12), checks a schema against the draft's meta-schema with the place of
// each mistake (`/properties/n/type`), refuses unknown keywords in strict mode, and words an answer's
// errors with the path that is wrong, which is what the model needs to fix it. zod's converter covers
// a subset of keywords and would accept a schema it then validates differently. Ajv is bundled into
// dist by esbuild (as turndown and the MCP SDK are, so it stays a devDependency) and loaded with
// `import()` only when a schema is given: start-up without one pays nothing.
//
// The schema goes to the model as the final-answer tool's input schema, converted to each wire API's
// dialect as every tool schema is (providers/portable-schema.ts); the original validates the answer,
// so a keyword a provider cannot take (additionalProperties, minLength) is still enforced here.

/** A JSON Schema the answer must satisfy, checked; `check` gives the errors of a value, or undefined. */
export interface AnswerSchema {
  schema: Record<string, unknown>;
  check(value: unknown): string | undefined;
}

/** The schema cannot be used: the message names the place (`/properties/n/type`). A usage error. */
export class AnswerSchemaError extends Error {
  override name = "AnswerSchemaError";
}

/** The meta-schemas Ajv knows; another `$schema` is refused by name. */
const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
/** Errors listed back to the model at most: the first few are what it needs to fix. */
const MAX_LISTED_ERRORS = 8;

interface AjvError {
  instancePath: string;
  message?: string;
  params?: Record<string, unknown>;
}
interface AjvInstance {
  validateSchema(schema: unknown): boolean | Promise<unknown>;
  compile(schema: unknown): ((value: unknown) => boolean) & { errors?: AjvError[] | null };
  errors?: AjvError[] | null;
}
type AjvClass = new (options: Record<string, unknown>) => AjvInstance;

/** Checks `schema` (parsed JSON) and compiles its validator; throws AnswerSchemaError. */
export async function compileAnswerSchema(schema: unknown): Promise<AnswerSchema> {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema))
    throw new AnswerSchemaError("the schema must be a JSON object (a JSON Schema)");
  const object = schema as Record<string, unknown>;
  if (object.type !== "object")
    throw new AnswerSchemaError(
      `the schema's top level must be {"type": "object", ...}: the answer is a tool call's input, which is an object on every API (wrap a list or a value in a property)`,
    );
  const ajv = new (await ajvFor(object.$schema))({
    allErrors: true,
    // Unknown keywords are mistakes (`"propertes"`), said with their place; formats are not checked
    // (Ajv knows none without ajv-formats), the model is told them as a note in the description.
    strict: true,
    strictTypes: false,
    strictRequired: false,
    allowUnionTypes: true,
    validateFormats: false,
  });
  if (ajv.validateSchema(object) !== true)
    throw new AnswerSchemaError(`the schema is not valid JSON Schema: ${describeErrors(ajv.errors ?? [], "")}`);
  let validate: ReturnType<AjvInstance["compile"]>;
  try {
    validate = ajv.compile(object);
  } catch (error) {
    throw new AnswerSchemaError(`the schema cannot be used: ${(error as Error).message}`);
  }
  return {
    schema: object,
    check(value) {
      return validate(value) ? undefined : describeErrors(validate.errors ?? [], "the answer");
    },
  };
}

async function ajvFor(draft: unknown): Promise<AjvClass> {
  const loaded = (module: { default: unknown }) =>
    ((module.default as { default?: AjvClass }).default ?? module.default) as AjvClass;
  if (draft === undefined || (typeof draft === "string" && DRAFT_2020.test(draft)))
    return loaded(await import("ajv/dist/2020.js"));
  if (typeof draft === "string" && DRAFT_07.test(draft)) return loaded(await import("ajv"));
  throw new AnswerSchemaError(
    `$schema ${JSON.stringify(draft)} is not a draft harness validates: use https://json-schema.org/draft/2020-12/schema (the default) or http://json-schema.org/draft-07/schema#`,
  );
}

/** Ajv's errors as one line each, with the place: `/count must be integer`. */
function describeErrors(all: readonly AjvError[], root: string): string {
  // One per place: a wrong `type` fails the enum, the array form and their anyOf, all at one place.
  const errors = all.filter(
    (error, index) => all.findIndex((other) => other.instancePath === error.instancePath) === index,
  );
  const lines = errors.slice(0, MAX_LISTED_ERRORS).map((error) => {
    const place = error.instancePath || (root ? "" : "/");
    const extra =
      error.params && typeof error.params.additionalProperty === "string"
        ? ` (${JSON.stringify(error.params.additionalProperty)})`
        : "";
    return `${[root, place].filter(Boolean).join(" at ")} ${error.message ?? "is invalid"}${extra}`.trim();
  });
  if (errors.length > MAX_LISTED_ERRORS) lines.push(`and ${errors.length - MAX_LISTED_ERRORS} more`);
  return lines.join("; ");
}

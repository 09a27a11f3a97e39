// The test oracle for tool schemas: where a schema leaves the subset every provider accepts
// (src/providers/portable-schema.ts lists the rules and their sources). Written separately from the
// converter, keyword by keyword, so the two can disagree and a test can fail.

const ALLOWED = new Set([
  "type",
  "description",
  "title",
  "pattern",
  "properties",
  "required",
  "items",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "anyOf",
  "enum",
  "format",
]);
const TYPES = new Set(["string", "number", "integer", "boolean", "array", "object"]);

/** One line per problem (`path: what`), empty when the schema is inside the portable subset. */
export function outsidePortableSubset(schema: unknown, path = "parameters"): string[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return [`${path}: not a schema object`];
  const node = schema as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(node)) if (!ALLOWED.has(key)) problems.push(`${path}: keyword ${key}`);
  if (node.type !== undefined && !(typeof node.type === "string" && TYPES.has(node.type)))
    problems.push(`${path}: type ${JSON.stringify(node.type)}`);
  if (node.properties !== undefined && node.type !== "object") problems.push(`${path}: properties without type object`);
  if (node.required !== undefined && node.type !== "object") problems.push(`${path}: required without type object`);
  if (node.items !== undefined && node.type !== "array") problems.push(`${path}: items without type array`);
  if (node.enum !== undefined && !(Array.isArray(node.enum) && node.enum.every((value) => typeof value === "string")))
    problems.push(`${path}: enum of non-strings`);
  if (node.format !== undefined && node.format !== "date-time")
    problems.push(`${path}: format ${JSON.stringify(node.format)}`);
  for (const key of ["minimum", "maximum"]) {
    const bound = node[key];
    if (bound !== undefined && !(typeof bound === "number" && Math.abs(bound) < Number.MAX_SAFE_INTEGER))
      problems.push(`${path}: ${key} ${bound}`);
  }
  if (typeof node.properties === "object" && node.properties !== null) {
    for (const [name, property] of Object.entries(node.properties))
      problems.push(...outsidePortableSubset(property, `${path}.properties.${name}`));
  }
  if (node.items !== undefined) problems.push(...outsidePortableSubset(node.items, `${path}.items`));
  if (Array.isArray(node.anyOf))
    for (const [index, branch] of node.anyOf.entries())
      problems.push(...outsidePortableSubset(branch, `${path}.anyOf[${index}]`));
  return problems;
}

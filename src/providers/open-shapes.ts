// Open shapes for servers that take only Gemini's `parameters` Schema: Gemini's OpenAI-compatible
// endpoint (https://generativelanguage.googleapis.com/v1beta/openai/) and routers or proxies in front
// of a Gemini model. That Schema has no free-form object and no untyped array: an OBJECT needs
// properties ("...properties[extracted_content].properties: should be non-empty for OBJECT type",
// FoundationAgents/OpenManus#866, through the OpenAI-compatible endpoint), an ARRAY needs items
// ("...items: missing field.", lbjlaq/Antigravity-Manager#3374), at any depth. Google's own API takes
// such a schema whole as `parametersJsonSchema` (gemini/gemini-request.ts); these servers take only
// `parameters`, so MCP tools with such schemas fail every request there.
//
// Decision: a free-form object below the top is sent as a string holding the object as JSON text,
// and an array without items as a list of strings, each item a JSON text or a plain word; the
// model writes JSON inside strings well, and the tool's own schema says nothing narrower. The
// call's arguments are decoded back before the tool sees them: a string in such a place that
// parses as a JSON object (or, in a list, as an object or array) becomes that value, anything else
// stays the string it was (a list of words stays words). Placeholder properties were the other way
// (a key the model must not fill): the model then fills that key and nothing else
// (googleapis/js-genai#708). docs/models.md says this for users.
import { type JsonSchema, portableSchema } from "./portable-schema.ts";

const AS_JSON_OBJECT = "a JSON object, written as JSON text";
const AS_JSON_ITEM = "an item: JSON text for an object or a list, else plain text";

/** Per tool schema, its closed form, or null when it has no open shape (worked out once). */
const closedForms = new WeakMap<JsonSchema, JsonSchema | null>();

/** The tool schema with its open shapes closed, or undefined when it has none (it goes as it is). */
export function closedSchema(schema: JsonSchema): JsonSchema | undefined {
  let closed = closedForms.get(schema);
  if (closed === undefined) {
    const portable = portableSchema(schema);
    const result = close(portable, true);
    closed = result === portable ? null : result;
    closedForms.set(schema, closed);
  }
  return closed ?? undefined;
}

/** A call's arguments (JSON text) with the closed shapes' strings decoded, per the tool's own schema. */
export function openedArguments(schema: JsonSchema, text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text; // not JSON: the tool's validation says so, as for any server
  }
  const opened = open(value, portableSchema(schema), true);
  return opened === value ? text : JSON.stringify(opened);
}

function isFreeObject(node: JsonSchema, isTop: boolean): boolean {
  return !isTop && node.type === "object" && Object.keys(asObject(node.properties)).length === 0;
}

function isFreeArray(node: JsonSchema): boolean {
  return node.type === "array" && (!node.items || Object.keys(asObject(node.items)).length === 0);
}

function described(node: JsonSchema, note: string): string {
  return typeof node.description === "string" && node.description ? `${node.description} (${note})` : note;
}

/** The node with open shapes closed at every depth; the same object when nothing below changed. */
function close(node: JsonSchema, isTop = false): JsonSchema {
  if (isFreeObject(node, isTop)) return { type: "string", description: described(node, AS_JSON_OBJECT) };
  let out = node;
  const set = (key: string, value: unknown) => {
    if (out === node) out = { ...node };
    out[key] = value;
  };
  if (isFreeArray(node)) set("items", { type: "string", description: AS_JSON_ITEM });
  else if (node.items && typeof node.items === "object") {
    const items = close(node.items as JsonSchema);
    if (items !== node.items) set("items", items);
  }
  const properties = asObject(node.properties);
  const closedProperties = Object.fromEntries(
    Object.entries(properties).map(([name, child]) => [name, close(asObject(child))]),
  );
  if (Object.entries(closedProperties).some(([name, child]) => child !== properties[name]))
    set("properties", closedProperties);
  if (Array.isArray(node.anyOf)) {
    const branches = node.anyOf.map((branch) => close(asObject(branch)));
    if (branches.some((branch, i) => branch !== (node.anyOf as unknown[])[i])) set("anyOf", branches);
  }
  return out;
}

/** The value with the strings at closed places decoded; the same value when none was. */
function open(value: unknown, node: JsonSchema, isTop = false): unknown {
  if (isFreeObject(node, isTop)) return typeof value === "string" ? decoded(value, false) : value;
  if (Array.isArray(value) && node.type === "array") {
    const items = asObject(node.items);
    const free = isFreeArray(node);
    const opened = value.map((item) =>
      free ? (typeof item === "string" ? decoded(item, true) : item) : open(item, items),
    );
    return opened.some((item, i) => item !== value[i]) ? opened : value;
  }
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const properties = asObject(node.properties);
    let out = value as Record<string, unknown>;
    for (const [name, child] of Object.entries(value)) {
      if (!(name in properties)) continue;
      const opened = open(child, asObject(properties[name]));
      if (opened !== child) out = { ...out, [name]: opened };
    }
    return out;
  }
  if (typeof value === "string" && Array.isArray(node.anyOf)) {
    const branches = node.anyOf.map(asObject);
    // A string where a branch takes strings is that string; else a closed object branch decodes it.
    if (!branches.some((branch) => branch.type === "string") && branches.some((branch) => isFreeObject(branch, false)))
      return decoded(value, false);
  }
  return value;
}

/** The JSON a string holds when it is an object (or, for a list item, an array too); else the string. */
function decoded(text: string, arrayToo: boolean): unknown {
  try {
    const value = JSON.parse(text);
    if (value && typeof value === "object" && (arrayToo || !Array.isArray(value))) return value;
  } catch {}
  return text;
}

function asObject(value: unknown): JsonSchema {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as JsonSchema) : {};
}

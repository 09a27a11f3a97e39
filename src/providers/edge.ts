// Every wire adapter behind one edge: the conversation converted for the target (replay.ts), the
// tools fitted to its limits (tool-limits.ts), images it cannot take left out, each reply tagged
// with its source, and renamed tool calls given their own names back. The adapters below see
// only what their API accepts.
import type { ImagePart, Message } from "../core/messages.ts";
import type { ModelEvent, ModelRequest, Provider } from "../core/provider.ts";
import type { ProviderSettings } from "./index.ts";
import { modelFact } from "./model-catalogue.ts";
import { closedSchema, openedArguments } from "./open-shapes.ts";
import type { JsonSchema } from "./portable-schema.ts";
import { forTarget, sourceOf } from "./replay.ts";
import { bridgeToolResults } from "./role-order.ts";
import { fitTools } from "./tool-limits.ts";
import type { WireRules } from "./wire-apis.ts";
import { hostOf, rulesFor } from "./wire-rules.ts";

export function atTheEdge(inner: Provider, settings: ProviderSettings): Provider {
  const rules = rulesFor(settings);
  const query = { model: settings.model, provider: settings.name, configured: settings.modelEntries };
  const takesImages = modelFact(query, "images")?.value !== false;
  const bridged = modelFact(query, "rules")?.value.assistantAfterTools === true;
  const source = sourceOf(settings);
  const closesShapes = takesOnlyGeminiSchema(settings, rules, modelFact(query, "rules")?.value.geminiSchema === true);
  const target = `${settings.name} (${settings.model})`;
  const told = new Set<string>();
  const tell = (line: string) => {
    if (told.has(line)) return;
    told.add(line);
    settings.onWait?.(line);
  };
  return {
    name: inner.name,
    model: inner.model,
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      const tools = fitTools(closesShapes ? withClosedShapes(request.tools) : request.tools, rules, target);
      const converted = withWireNames(forTarget(request.messages, settings, rules), tools.renamed);
      const images = fitImages(bridged ? bridgeToolResults(converted) : converted, rules, target, takesImages);
      for (const line of [...tools.notices, ...images.notices]) tell(line);
      const own = (name: string | undefined) => (name === undefined ? name : (tools.renamed.get(name) ?? name));
      for await (const event of inner.stream({ ...request, messages: images.messages, tools: tools.tools }, signal)) {
        if (event.type === "tool_call_delta") yield { ...event, name: own(event.name) };
        else if (event.type === "done") {
          const content = event.message.content.map((part) => {
            if (part.type !== "tool_call") return part;
            const name = own(part.name) ?? part.name;
            const schema = closesShapes ? request.tools.find((tool) => tool.name === name)?.parameters : undefined;
            return { ...part, name, ...(schema ? { arguments: openedArguments(schema, part.arguments) } : {}) };
          });
          yield { type: "done", message: { ...event.message, content, source } };
        } else yield event;
      }
    },
  };
}

/**
 * Whether the target takes only Gemini's `parameters` Schema (open-shapes.ts): Gemini's
 * OpenAI-compatible endpoint (https://ai.google.dev/gemini-api/docs/openai) or Vertex AI's
 * (`.../endpoints/openapi`), whatever the model, or a Gemini model (its catalogue entry says so)
 * behind a router or proxy on any API but Google's own, which takes `parametersJsonSchema`.
 */
function takesOnlyGeminiSchema(settings: ProviderSettings, rules: WireRules, isGeminiModel: boolean): boolean {
  if (rules.takesOpenShapes) return false;
  const host = hostOf(settings.baseUrl).replace(/:\d+$/, "");
  return isGeminiModel || /(^|\.)(generativelanguage|aiplatform)\.googleapis\.com$/.test(host);
}

/** The tools with open shapes closed, where a schema has any (the same tool object where not). */
function withClosedShapes(tools: ModelRequest["tools"]): ModelRequest["tools"] {
  return tools.map((tool) => {
    const closed = closedSchema(tool.parameters as JsonSchema);
    return closed ? { ...tool, parameters: closed } : tool;
  });
}

/** Calls and results of renamed tools under the names the request gave them, as the API saw them. */
function withWireNames(messages: Message[], renamed: Map<string, string>): Message[] {
  if (renamed.size === 0) return messages;
  const wireName = new Map([...renamed].map(([wire, own]) => [own, wire]));
  return messages.map((message): Message => {
    if (message.role === "tool") return { ...message, toolName: wireName.get(message.toolName) ?? message.toolName };
    if (message.role !== "assistant") return message;
    const content = message.content.map((part) =>
      part.type === "tool_call" ? { ...part, name: wireName.get(part.name) ?? part.name } : part,
    );
    return { ...message, content };
  });
}

/**
 * Images the target cannot take become a line of text saying so, in the message and once on
 * stderr: all of them for a model the catalogue says reads none, else those over its size limit.
 */
function fitImages(
  messages: Message[],
  rules: WireRules,
  target: string,
  takesImages: boolean,
): { messages: Message[]; notices: string[] } {
  const limit = rules.maxImageBytes;
  if (limit === undefined && takesImages) return { messages, notices: [] };
  const notices: string[] = [];
  const bytes = (part: ImagePart) => Math.floor((part.data.length * 3) / 4);
  const tooLarge = (part: ImagePart) => !takesImages || (limit !== undefined && bytes(part) > limit);
  const note = (part: ImagePart) => {
    const line = takesImages
      ? `an image of ${megabytes(bytes(part))} is left out: ${target} takes at most ${megabytes(limit ?? 0)} per image`
      : `an image is left out: ${target} reads no images`;
    notices.push(line);
    return `[${line}]`;
  };
  const fitted = messages.map((message): Message => {
    if (message.role === "user" && message.content.some((part) => part.type === "image" && tooLarge(part)))
      return {
        ...message,
        content: message.content.map((part) =>
          part.type === "image" && tooLarge(part) ? { type: "text", text: note(part) } : part,
        ),
      };
    if (message.role === "tool" && message.images?.some(tooLarge)) {
      const notes = message.images.filter(tooLarge).map(note);
      return {
        ...message,
        images: message.images.filter((part) => !tooLarge(part)),
        content: [message.content, ...notes].join("\n"),
      };
    }
    return message;
  });
  return { messages: fitted, notices };
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

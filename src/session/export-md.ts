// The Markdown export of a session: readable as plain text, renders anywhere Markdown does.

import { assertNever, type ImagePart } from "../core/messages.ts";
import type { SessionData } from "./session-reader.ts";
import {
  formatUsage,
  imageDataUrl,
  prettyArguments,
  subagentLabel,
  toolCallLabel,
  transcriptItems,
} from "./transcript-items.ts";

export function exportMarkdown(session: SessionData): string {
  const { header } = session;
  const out: string[] = [
    `# harness session ${header.id}`,
    "",
    `- directory: \`${header.cwd}\``,
    `- started: ${header.startedAt}`,
    `- model: ${header.provider} · ${header.model}`,
    `- harness: ${header.harnessVersion}`,
    `- tokens: ${formatUsage(session.usage)}`,
    "",
  ];
  for (const item of transcriptItems(session)) {
    switch (item.type) {
      case "user":
        out.push("## User", "", item.text.trim(), "", ...imageLinks(item.images));
        break;
      case "note":
        out.push(`> *${item.text}*`, "");
        break;
      case "subagent":
        out.push(`> *${subagentLabel(item)}* (\`harness export ${item.sessionId} --md\` shows it)`, "");
        break;
      case "assistant": {
        const { message } = item;
        out.push(message.stopReason === "aborted" ? "## Assistant (interrupted)" : "## Assistant", "");
        for (const part of message.content) {
          switch (part.type) {
            case "text":
              if (part.text.trim()) out.push(part.text.trim(), "");
              break;
            case "thinking":
              if (part.text.trim())
                out.push(
                  ...part.text
                    .trim()
                    .split("\n")
                    .map((line) => `> ${line}`),
                  "",
                );
              break;
            case "tool_call": {
              const result = item.results.get(part.id);
              out.push(
                `**Tool call** \`${toolCallLabel(part).replace(/`/g, "'")}\``,
                "",
                fenced(prettyArguments(part), "json"),
              );
              if (result)
                out.push(
                  result.isError ? "Result (error):" : "Result:",
                  "",
                  fenced(result.content, ""),
                  ...imageLinks(result.images ?? []),
                );
              break;
            }
            default:
              assertNever(part);
          }
        }
        if (message.usage) out.push(`*tokens: ${formatUsage(message.usage)}*`, "");
        break;
      }
      default:
        assertNever(item);
    }
  }
  return `${out.join("\n").trimEnd()}\n`;
}

/**
 * Each image as a Markdown image: one kept in a file beside the session links to that file; a
 * small one kept inline in the session is a `data:` URL (there is no file to link to).
 */
function imageLinks(images: ImagePart[]): string[] {
  return images.flatMap((image) => [
    `![${image.mediaType}](${image.file ? `<${image.file}>` : imageDataUrl(image)})`,
    "",
  ]);
}

/** A code fence longer than any run of backticks inside, so no content can close it early. */
function fenced(text: string, language: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${text.replace(/\n$/, "")}\n${fence}\n`;
}

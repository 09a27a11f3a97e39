// Images in session files: small ones stay inline (base64 in the line), larger ones are written
// once to a file beside the session (`<id>/images/<hash>.<ext>`) and the line names that file,
// so a session of screenshots stays quick to list, read and resume.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ImagePart, Message } from "../core/messages.ts";
import { makePrivateFolder, PRIVATE_FILE_MODE } from "../shared/private-files.ts";

/** Base64 characters an image may take inline in a session line (48 KB of picture). */
export const INLINE_IMAGE_MAX_CHARS = 64 * 1024;

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};

/** The message as a session line keeps it: large images moved to files under `sessionsDir`/`id`/images. */
export function storeImages(message: Message, sessionsDir: string, id: string): Message {
  const store = (part: ImagePart): ImagePart => {
    if (part.data.length <= INLINE_IMAGE_MAX_CHARS) return part;
    const bytes = Buffer.from(part.data, "base64");
    const file = `${id}/images/${createHash("sha256").update(bytes).digest("hex").slice(0, 16)}.${EXTENSIONS[part.mediaType] ?? "bin"}`;
    makePrivateFolder(join(sessionsDir, id, "images"));
    writeFileSync(join(sessionsDir, file), bytes, { mode: PRIVATE_FILE_MODE });
    return { type: "image", mediaType: part.mediaType, data: "", file };
  };
  switch (message.role) {
    case "user":
      return message.content.some((part) => part.type === "image")
        ? { ...message, content: message.content.map((part) => (part.type === "image" ? store(part) : part)) }
        : message;
    case "tool":
      return message.images ? { ...message, images: message.images.map(store) } : message;
    case "assistant":
      return message;
  }
}

/**
 * The message with images kept in files read back (`file` then holds the file's full path). An
 * image whose file is gone becomes a note in words, so the conversation can still be sent.
 */
export function loadImages(message: Message, sessionsDir: string): Message {
  const load = (part: ImagePart): ImagePart | string => {
    if (!part.file || part.data) return part;
    const path = join(sessionsDir, part.file);
    try {
      return { ...part, data: readFileSync(path).toString("base64"), file: path };
    } catch {
      return `[an image kept in ${path} is missing]`;
    }
  };
  switch (message.role) {
    case "user":
      return {
        ...message,
        content: message.content.map((part) => (part.type === "image" ? asPart(load(part)) : part)),
      };
    case "tool": {
      if (!message.images) return message;
      const loaded = message.images.map(load);
      const missing = loaded.filter((item): item is string => typeof item === "string");
      const images = loaded.filter((item): item is ImagePart => typeof item !== "string");
      return { ...message, content: [message.content, ...missing].join("\n"), images };
    }
    case "assistant":
      return message;
  }
}

function asPart(loaded: ImagePart | string): ImagePart | { type: "text"; text: string } {
  return typeof loaded === "string" ? { type: "text", text: loaded } : loaded;
}

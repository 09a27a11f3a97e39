// A prompt with its pictures: images named in its text (`@shot.png`; in chat also a pasted path)
// or given with --image are loaded, made fit for the model (tools/image-file.ts) and sent as
// image parts after the text, each introduced by a line naming it, as read_file names its image.
import { resolve } from "node:path";
import type { UserContent } from "../core/messages.ts";
import { describeImage, loadImageFile, prepareBase64Image } from "../tools/image-file.ts";
import { imagesNamedIn, type NamedImage } from "../ui/attachments.ts";

/** The prompt as text alone when it names no image, else as parts; an error line when an image cannot be sent. */
export async function promptWithImages(
  text: string,
  cwd: string,
  options: { files?: string[]; pastedPaths: boolean },
): Promise<{ prompt: string | UserContent } | { error: string }> {
  const given: NamedImage[] = (options.files ?? []).map((file) => ({ path: resolve(cwd, file), name: file }));
  const named = imagesNamedIn(text, cwd, { pastedPaths: options.pastedPaths }).filter(
    (image) => !given.some((other) => other.path === image.path),
  );
  if (given.length + named.length === 0) return { prompt: text };
  const content: UserContent = [{ type: "text", text }];
  for (const { path, name } of [...given, ...named]) {
    const loaded = await loadImageFile(path, name);
    if ("error" in loaded) return { error: loaded.error };
    content.push({ type: "text", text: `[image ${name}: ${describeImage(loaded)}]` }, loaded.image);
  }
  return { prompt: content };
}

/**
 * A prompt whose pictures came as base64 parts (a stream-json line, an editor's prompt), each made
 * fit for the model as an attached file is; an error line naming the first that cannot be sent
 * (`where` says where the prompt came from: `stdin line 3: image 1 is not ...`).
 * The sender's text is left as it wrote it: no line naming each picture is added, as the sender
 * placed its pictures among its own words.
 */
export async function preparePromptImages(
  prompt: string | UserContent,
  where = "",
): Promise<{ prompt: string | UserContent } | { error: string }> {
  if (typeof prompt === "string") return { prompt };
  const content: UserContent = [];
  let number = 0;
  for (const part of prompt) {
    if (part.type === "text") {
      content.push(part);
      continue;
    }
    const prepared = await prepareBase64Image(part.data, `${where}image ${++number}`);
    if ("error" in prepared) return { error: prepared.error };
    content.push(prepared.image);
  }
  return { prompt: content };
}

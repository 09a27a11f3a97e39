// A prompt with its pictures: images named in its text (`@shot.png`; in chat also a pasted path)
// or given with --image are loaded, made fit for the model (tools/image-file.ts) and sent as
// image parts after the text, each introduced by a line naming it, as read_file names its image.
import { resolve } from "node:path";
import type { UserContent } from "./core/messages.ts";
import { describeImage, loadImageFile } from "./tools/image-file.ts";
import { imagesNamedIn, type NamedImage } from "./ui/attachments.ts";

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

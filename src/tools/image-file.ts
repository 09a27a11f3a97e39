// Pictures for the model: which files are images (by their first bytes, never their name), how
// big they are in pixels, and the bound on what one image may cost. read_file, the CLI's
// attachments (`@shot.png`, a pasted path, --image) and pictures sent as base64 (stream-json
// input, an editor's ACP prompt, an MCP tool's result) all come through here.
//
// Decision: images past the bound are downscaled, not refused, because a screenshot from a
// high-density screen is the common case. The decoder is @silvia-odwyer/photon-node: Rust's
// `image` crate compiled to WebAssembly (2 MB, no dependencies, no install script, no native
// binary per platform; sharp's libvips weighs 18 MB and jimp is ~30 packages). It is imported
// only when an image needs shrinking (it takes ~0.3 s to load), so start-up never pays for it.
// Only files too large to decode safely are refused.
import { stat } from "node:fs/promises";
import type { ImagePart } from "../core/messages.ts";
import { formatBytes } from "../shared/helpers.ts";
import { readRegularFile, specialFileKind } from "../shared/read-regular-file.ts";

/** The picture formats every API we speak accepts. */
export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** Files larger than this are refused unread: decoding them would hold too much memory. */
export const MAX_IMAGE_FILE_BYTES = 20_000_000;
/** Nor are pictures of more pixels decoded (40 million: 160 MB of RGBA). */
export const MAX_IMAGE_PIXELS = 40_000_000;
/** The longer side an image is sent at most: Anthropic's limit with many images, OpenAI's high detail. */
export const MAX_IMAGE_EDGE = 2000;
/** Encoded bytes sent at most per image: base64 of it stays under Anthropic's 5 MB per image. */
export const MAX_IMAGE_BYTES = 3_750_000;
/** How often a downscaled image is halved again when it is still too many bytes. */
const MAX_SHRINK_STEPS = 4;

/** An image ready for the model, and what a caller says about it. */
export interface PreparedImage {
  image: ImagePart;
  width: number;
  height: number;
  /** The size it had on disk when it was downscaled to fit. */
  original?: { width: number; height: number };
}

/** The image format of a file from its first bytes (16 are enough), or undefined when it is none we send. */
export function imageTypeOf(head: Uint8Array): ImageMediaType | undefined {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return "image/png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (/^GIF8[79]a/.test(bytes.toString("latin1", 0, 6))) return "image/gif";
  if (bytes.toString("latin1", 0, 4) === "RIFF" && bytes.toString("latin1", 8, 12) === "WEBP") return "image/webp";
  return undefined;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from the image's header, or undefined when the header is damaged. */
export function imageSize(bytes: Buffer, type: ImageMediaType): { width: number; height: number } | undefined {
  if (bytes.length < 30) return undefined;
  switch (type) {
    case "image/png":
      return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
    case "image/gif":
      return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
    case "image/webp":
      return webpSize(bytes);
    case "image/jpeg":
      return jpegSize(bytes);
    default:
      throw new Error(`unknown image type ${type satisfies never}`);
  }
}

/** WebP's three layouts: lossy (`VP8 `), lossless (`VP8L`) and extended (`VP8X`). */
function webpSize(bytes: Buffer): { width: number; height: number } | undefined {
  const chunk = bytes.toString("latin1", 12, 16);
  if (chunk === "VP8 ") return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  if (chunk === "VP8L") {
    const bits = bytes.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8X") return { width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 };
  return undefined;
}

/** JPEG: walk the marker segments to the first start-of-frame, which holds the size. */
function jpegSize(bytes: Buffer): { width: number; height: number } | undefined {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1];
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  return undefined;
}

/** An image file the user attached (`@shot.png`, --image), made fit for the model; `name` is how errors call it. */
export async function loadImageFile(path: string, name: string): Promise<PreparedImage | { error: string }> {
  const found = await stat(path).catch(() => undefined);
  const special = found && specialFileKind(found);
  if (special) return { error: `${name} is ${special}, not a picture file` };
  if (!found?.isFile()) return { error: `${name}: no such file` };
  const tooLarge = imageFileTooLarge(found.size, name);
  if (tooLarge) return { error: tooLarge };
  // Read only as a regular file, opened non-blocking: a FIFO swapped in after the stat cannot hang it.
  const bytes = readRegularFile(path, found.size)?.bytes;
  if (!bytes) return { error: `${name}: not a regular file` };
  const type = imageTypeOf(bytes.subarray(0, 16));
  if (!type) return { error: `${name} is not a PNG, JPEG, GIF or WebP image` };
  return prepareImage(bytes, type, name);
}

/**
 * An image that came as base64 from outside (a stream-json line, an editor's prompt, an MCP
 * server), made fit for the model like a file, with the words that name it (`20x20 PNG`). The
 * type the sender declared is not trusted: the bytes say what they are, as for files, so a
 * mislabelled picture still goes with its real type.
 */
export async function prepareBase64Image(
  data: string,
  name: string,
): Promise<{ image: ImagePart; description: string } | { error: string }> {
  // Checked before decoding: base64 is 4 characters per 3 bytes.
  const tooLarge = imageFileTooLarge(Math.floor((data.length * 3) / 4), name);
  if (tooLarge) return { error: tooLarge };
  const bytes = Buffer.from(data, "base64");
  const type = imageTypeOf(bytes.subarray(0, 16));
  if (!type) return { error: `${name} is not a PNG, JPEG, GIF or WebP image` };
  const prepared = await prepareImage(bytes, type, name);
  return "error" in prepared ? prepared : { image: prepared.image, description: describeImage(prepared) };
}

/** Why a file of `size` bytes is not read as an image, or undefined when its size is fine (checked before reading it). */
export function imageFileTooLarge(size: number, name: string): string | undefined {
  if (size <= MAX_IMAGE_FILE_BYTES) return undefined;
  return `${name} is an image of ${formatBytes(size)}; images up to ${formatBytes(MAX_IMAGE_FILE_BYTES)} are taken (crop or scale it first)`;
}

/**
 * The image in `bytes` made fit for the model: as it is when it is within MAX_IMAGE_EDGE and
 * MAX_IMAGE_BYTES, else downscaled. Returns an error line (naming `name`) when it is too large
 * to decode, damaged, or cannot be made small enough.
 */
export async function prepareImage(
  bytes: Buffer,
  type: ImageMediaType,
  name: string,
): Promise<PreparedImage | { error: string }> {
  const tooLarge = imageFileTooLarge(bytes.length, name);
  if (tooLarge) return { error: tooLarge };
  const size = imageSize(bytes, type);
  if (!size || size.width === 0 || size.height === 0)
    return { error: `${name} is not a readable ${type.slice(6).toUpperCase()} image (its header is damaged)` };
  if (size.width * size.height > MAX_IMAGE_PIXELS) {
    return {
      error: `${name} is ${size.width}x${size.height} pixels; images up to ${MAX_IMAGE_PIXELS / 1e6} million pixels are taken (crop or scale it first)`,
    };
  }
  if (Math.max(size.width, size.height) <= MAX_IMAGE_EDGE && bytes.length <= MAX_IMAGE_BYTES) {
    return { image: { type: "image", mediaType: type, data: bytes.toString("base64") }, ...size };
  }
  try {
    return await downscale(bytes, size, name);
  } catch (error) {
    return {
      error: `${name} could not be decoded to downscale it (${error instanceof Error ? error.message : String(error)})`,
    };
  }
}

/** Shrinks to fit MAX_IMAGE_EDGE, as PNG (sharp text) or, when that is too many bytes, JPEG; halves again while still too large. */
async function downscale(
  bytes: Buffer,
  original: { width: number; height: number },
  name: string,
): Promise<PreparedImage | { error: string }> {
  const photon = await import("@silvia-odwyer/photon-node");
  const decoded = photon.PhotonImage.new_from_byteslice(bytes);
  try {
    let scale = Math.min(1, MAX_IMAGE_EDGE / Math.max(original.width, original.height));
    for (let step = 0; step < MAX_SHRINK_STEPS; step++, scale /= 2) {
      const width = Math.max(1, Math.round(original.width * scale));
      const height = Math.max(1, Math.round(original.height * scale));
      const resized = scale < 1 ? photon.resize(decoded, width, height, photon.SamplingFilter.Triangle) : decoded;
      try {
        for (const [mediaType, encode] of [
          ["image/png", () => resized.get_bytes()],
          ["image/jpeg", () => resized.get_bytes_jpeg(80)],
        ] as const) {
          const encoded = encode();
          if (encoded.length <= MAX_IMAGE_BYTES) {
            return {
              image: { type: "image", mediaType, data: Buffer.from(encoded).toString("base64") },
              width,
              height,
              original,
            };
          }
        }
      } finally {
        if (resized !== decoded) resized.free();
      }
    }
  } finally {
    decoded.free();
  }
  return { error: `${name} stays over ${formatBytes(MAX_IMAGE_BYTES)} even downscaled; crop it first` };
}

/** `800x600 PNG`, or `2000x1500 PNG (downscaled from 4000x3000)`: how tool results and attachments name an image. */
export function describeImage(prepared: PreparedImage): string {
  const kind = prepared.image.mediaType.slice(6).toUpperCase();
  const from = prepared.original ? ` (downscaled from ${prepared.original.width}x${prepared.original.height})` : "";
  return `${prepared.width}x${prepared.height} ${kind}${from}`;
}

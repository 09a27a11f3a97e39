// Small pictures made on the spot for the image tests (no binary files in the repo), encoded
// by the same library harness decodes with.
import { PhotonImage } from "@silvia-odwyer/photon-node";

/** A `width` x `height` picture with a gradient, so no two sizes encode alike. */
function picture(width: number, height: number): PhotonImage {
  const pixels = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) pixels.set([(i * 7) % 256, (i * 13) % 256, (i % width) % 256, 255], i * 4);
  return new PhotonImage(pixels, width, height);
}

export function pngOf(width: number, height: number): Buffer {
  return Buffer.from(picture(width, height).get_bytes());
}

export function jpegOf(width: number, height: number): Buffer {
  return Buffer.from(picture(width, height).get_bytes_jpeg(80));
}

/** A 1x1 GIF (the classic transparent pixel). */
export const TINY_GIF = Buffer.from("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==", "base64");

/** Only a PNG header, claiming `width` x `height`: enough to be judged by its size without being decoded. */
export function pngHeaderClaiming(width: number, height: number): Buffer {
  const header = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
  header.writeUInt32BE(13, 8);
  header.write("IHDR", 12, "latin1");
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  header.set([8, 6, 0, 0, 0], 24);
  return header;
}

/** Width and height a PNG's header says. */
export function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

// A minimal GGUF v3 writer, enough to build tiny F32 models for tests (no weights can be
// downloaded here). Format: magic, version, tensor count, KV count, typed metadata KVs,
// tensor infos, padding to the alignment, then each tensor's data at an aligned offset.

/** GGUF metadata value types (gguf.h). */
const GGUF_TYPE = { uint32: 4, int32: 5, float32: 6, bool: 7, string: 8, array: 9, uint64: 10 } as const;
export const GGML_TYPE_F32 = 0;
const GGUF_VERSION = 3;
/** `general.alignment` default; tensor data offsets must be multiples of it. */
const ALIGNMENT = 32;

/** A typed metadata value: the type decides the bytes written. */
export type GgufValue =
  | { type: "uint32" | "int32" | "float32" | "uint64"; value: number }
  | { type: "bool"; value: boolean }
  | { type: "string"; value: string }
  | { type: "array"; of: "string"; value: string[] }
  | { type: "array"; of: "float32" | "int32"; value: number[] };

/** An F32 tensor; `dims[0]` is the fastest-varying (GGML `ne[0]`, the input dimension of a weight). */
export interface GgufTensor {
  name: string;
  dims: number[];
  data: Float32Array;
}

export const u32 = (value: number): GgufValue => ({ type: "uint32", value });
export const f32 = (value: number): GgufValue => ({ type: "float32", value });
export const str = (value: string): GgufValue => ({ type: "string", value });

/** A tensor as the header describes it: its GGML type and how many bytes its data takes. */
export interface GgufTensorInfo {
  name: string;
  dims: number[];
  ggmlType: number;
  bytes: number;
}

/** Serialises metadata and tensors into one GGUF v3 file image. */
export function writeGguf(metadata: Record<string, GgufValue>, tensors: GgufTensor[]): Buffer {
  for (const tensor of tensors) {
    const count = tensor.dims.reduce((a, b) => a * b, 1);
    if (count !== tensor.data.length)
      throw new Error(`${tensor.name}: dims ${tensor.dims} need ${count} values, got ${tensor.data.length}`);
  }
  const infos = tensors.map(({ name, dims, data }) => ({
    name,
    dims,
    ggmlType: GGML_TYPE_F32,
    bytes: data.byteLength,
  }));
  const out = new ByteWriter();
  out.raw(ggufHeader(metadata, infos));
  for (const tensor of tensors) {
    out.raw(Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
    out.pad();
  }
  return out.toBuffer();
}

/**
 * Everything before the tensor data: magic, metadata, tensor infos, padding. Each tensor's data
 * then follows at the next multiple of ALIGNMENT (`alignedSize`), so a large model can be
 * streamed to disk after this header.
 */
export function ggufHeader(metadata: Record<string, GgufValue>, tensors: GgufTensorInfo[]): Buffer {
  const out = new ByteWriter();
  out.raw(Buffer.from("GGUF", "ascii"));
  out.u32(GGUF_VERSION);
  out.u64(tensors.length);
  out.u64(Object.keys(metadata).length);
  for (const [key, value] of Object.entries(metadata)) {
    out.string(key);
    writeValue(out, value);
  }
  let offset = 0;
  for (const tensor of tensors) {
    out.string(tensor.name);
    out.u32(tensor.dims.length);
    for (const dim of tensor.dims) out.u64(dim);
    out.u32(tensor.ggmlType);
    out.u64(offset);
    offset += alignedSize(tensor.bytes);
  }
  out.pad();
  return out.toBuffer();
}

/** The bytes a tensor's data takes in the file, padding included. */
export function alignedSize(bytes: number): number {
  return alignUp(bytes);
}

function writeValue(out: ByteWriter, value: GgufValue): void {
  out.u32(GGUF_TYPE[value.type]);
  switch (value.type) {
    case "uint32":
      return out.u32(value.value);
    case "int32":
      return out.i32(value.value);
    case "float32":
      return out.f32(value.value);
    case "uint64":
      return out.u64(value.value);
    case "bool":
      return out.raw(Buffer.from([value.value ? 1 : 0]));
    case "string":
      return out.string(value.value);
    case "array":
      out.u32(GGUF_TYPE[value.of]);
      out.u64(value.value.length);
      for (const item of value.value) {
        if (typeof item === "string") out.string(item);
        else if (value.of === "float32") out.f32(item);
        else out.i32(item);
      }
  }
}

function alignUp(n: number): number {
  return Math.ceil(n / ALIGNMENT) * ALIGNMENT;
}

/** Little-endian appender; GGUF is little-endian throughout. */
class ByteWriter {
  private chunks: Buffer[] = [];
  private length = 0;

  raw(bytes: Buffer): void {
    this.chunks.push(bytes);
    this.length += bytes.length;
  }
  u32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    this.raw(b);
  }
  i32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(n);
    this.raw(b);
  }
  f32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(n);
    this.raw(b);
  }
  u64(n: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    this.raw(b);
  }
  string(s: string): void {
    const bytes = Buffer.from(s, "utf8");
    this.u64(bytes.length);
    this.raw(bytes);
  }
  pad(): void {
    const padding = alignUp(this.length) - this.length;
    if (padding > 0) this.raw(Buffer.alloc(padding));
  }
  toBuffer(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}

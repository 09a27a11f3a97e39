// A tiny llama-architecture GGUF (about 300 KB) with a SentencePiece-style vocabulary and a
// ChatML chat template that knows tools, so node-llama-cpp loads it like a real instruct model.
import { f32, type GgufTensor, str, u32, writeGguf } from "./write-gguf.ts";

const N_EMBD = 64;
const N_FF = 128;
const N_HEAD = 4;
const N_LAYER = 1;
/** What the model's metadata announces; the provider reads its context window from here. */
export const TINY_CONTEXT_LENGTH = 8192;

/** SentencePiece token types (llama.cpp `llama_token_type`). */
const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, byte: 6 } as const;
const SPECIAL_TOKENS = ["<unk>", "<s>", "</s>", "<|im_start|>", "<|im_end|>"];
const END_OF_TURN = SPECIAL_TOKENS.indexOf("<|im_end|>");
const SPM_SPACE = "\u2581";
/** Logit of the scripted next token; every other token gets 0, so greedy decoding is exact. */
const NEXT_TOKEN_LOGIT = 2;

// A ChatML template with the Qwen-style tool section: enough for node-llama-cpp to offer
// function calling through it.
const CHAT_TEMPLATE = `{%- if tools %}<|im_start|>system
{% if messages[0].role == 'system' %}{{ messages[0].content }}

{% endif %}# Tools

<tools>
{% for tool in tools %}{{ tool | tojson }}
{% endfor %}</tools>

For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call><|im_end|>
{% elif messages[0].role == 'system' %}<|im_start|>system
{{ messages[0].content }}<|im_end|>
{% endif %}{%- for message in messages %}{%- if message.role == 'user' or (message.role == 'assistant' and not message.tool_calls) %}<|im_start|>{{ message.role }}
{{ message.content }}<|im_end|>
{% elif message.role == 'assistant' %}<|im_start|>assistant
{% if message.content %}{{ message.content }}
{% endif %}{%- for tool_call in message.tool_calls %}<tool_call>
{"name": "{{ tool_call.function.name }}", "arguments": {{ tool_call.function.arguments | tojson }}}
</tool_call>
{% endfor %}<|im_end|>
{% elif message.role == 'tool' %}<|im_start|>user
<tool_response>
{{ message.content }}
</tool_response><|im_end|>
{% endif %}{%- endfor %}{%- if add_generation_prompt %}<|im_start|>assistant
{% endif %}`;

/**
 * What the model says. Each piece becomes one token of its own (pieces must be distinct), and
 * the weights make the model write them in order after any prompt, then end its turn; with
 * `repeat` it starts over instead, so a generation runs until it is stopped.
 */
export interface TinyModelScript {
  reply: string[];
  repeat?: boolean;
  /**
   * More pieces, written after the token spelled `after` rather than after any prompt (an empty
   * reply ends the turn there): for text that node-llama-cpp inserts itself mid-reply, such as
   * the `", "arguments": ` and the closing `</tool_call>` of a tool call.
   */
  continuations?: Array<{ after: string; reply: string[] }>;
}

/**
 * The bytes of a tiny but loadable GGUF model. The weights are random except where they make
 * it a "bigram" machine: attention and MLP outputs are zero, so the next token depends only on
 * the current one; each scripted token gets a one-hot embedding and every other token shares
 * one more axis, so any prompt leads to the first piece and each piece to the next.
 */
export function tinyModelGguf(script: TinyModelScript): Buffer {
  const random = seededRandom(1);
  const tokens: string[] = [...SPECIAL_TOKENS];
  const types: number[] = [
    TOKEN_TYPE.unknown,
    TOKEN_TYPE.control,
    TOKEN_TYPE.control,
    TOKEN_TYPE.control,
    TOKEN_TYPE.control,
  ];
  // Byte fallback tokens: SentencePiece spells any character it has no piece for with these.
  for (let byte = 0; byte < 256; byte++) {
    tokens.push(`<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`);
    types.push(TOKEN_TYPE.byte);
  }
  tokens.push(SPM_SPACE);
  types.push(TOKEN_TYPE.normal);
  for (let code = 0x21; code < 0x7f; code++) {
    tokens.push(String.fromCharCode(code));
    types.push(TOKEN_TYPE.normal);
  }
  const tokenFor = (text: string) => {
    const piece = text.replaceAll(" ", SPM_SPACE);
    const existing = tokens.indexOf(piece);
    if (existing >= 0) return existing;
    tokens.push(piece);
    types.push(TOKEN_TYPE.normal);
    return tokens.length - 1;
  };
  const chains = [{ start: undefined as number | undefined, ids: script.reply.map(tokenFor), repeat: script.repeat }];
  for (const { after, reply } of script.continuations ?? [])
    chains.push({ start: tokenFor(after), ids: reply.map(tokenFor), repeat: false });
  // Axis k is the k-th scripted token (a chain's start, then its pieces); the last axis is "anything else".
  const axes = chains.flatMap((chain) => (chain.start === undefined ? chain.ids : [chain.start, ...chain.ids]));
  if (new Set(axes).size !== axes.length || axes.length >= N_EMBD)
    throw new Error(`the script needs at most ${N_EMBD - 1} distinct pieces`);
  const otherAxis = N_EMBD - 1;
  const vocab = tokens.length;
  const scores = tokens.map((_, i) => -i);

  const embeddings = new Float32Array(vocab * N_EMBD);
  for (let token = 0; token < vocab; token++) {
    const axis = axes.indexOf(token);
    embeddings[token * N_EMBD + (axis >= 0 ? axis : otherAxis)] = 1;
  }
  const output = new Float32Array(vocab * N_EMBD);
  const follow = (from: number | undefined, next: number) =>
    (output[next * N_EMBD + (from === undefined ? otherAxis : axes.indexOf(from))] = NEXT_TOKEN_LOGIT);
  for (const chain of chains) {
    follow(chain.start, chain.ids[0] ?? END_OF_TURN);
    for (const [k, id] of chain.ids.entries())
      follow(id, k + 1 < chain.ids.length ? chain.ids[k + 1] : chain.repeat ? chain.ids[0] : END_OF_TURN);
  }

  const matrix = (rows: number, cols: number) =>
    Float32Array.from({ length: rows * cols }, () => (random() * 2 - 1) * 0.2);
  const zeros = (rows: number, cols: number) => new Float32Array(rows * cols);
  const ones = (n: number) => new Float32Array(n).fill(1);
  const tensors: GgufTensor[] = [{ name: "token_embd.weight", dims: [N_EMBD, vocab], data: embeddings }];
  for (let layer = 0; layer < N_LAYER; layer++) {
    const block = (name: string, dims: number[], data: Float32Array) =>
      tensors.push({ name: `blk.${layer}.${name}.weight`, dims, data });
    block("attn_norm", [N_EMBD], ones(N_EMBD));
    for (const name of ["attn_q", "attn_k", "attn_v"]) block(name, [N_EMBD, N_EMBD], matrix(N_EMBD, N_EMBD));
    block("attn_output", [N_EMBD, N_EMBD], zeros(N_EMBD, N_EMBD));
    block("ffn_norm", [N_EMBD], ones(N_EMBD));
    block("ffn_gate", [N_EMBD, N_FF], matrix(N_FF, N_EMBD));
    block("ffn_up", [N_EMBD, N_FF], matrix(N_FF, N_EMBD));
    block("ffn_down", [N_FF, N_EMBD], zeros(N_EMBD, N_FF));
  }
  tensors.push({ name: "output_norm.weight", dims: [N_EMBD], data: ones(N_EMBD) });
  tensors.push({ name: "output.weight", dims: [N_EMBD, vocab], data: output });

  return writeGguf(
    {
      "general.architecture": str("llama"),
      "general.name": str("harness tiny test model"),
      "llama.context_length": u32(TINY_CONTEXT_LENGTH),
      "llama.embedding_length": u32(N_EMBD),
      "llama.block_count": u32(N_LAYER),
      "llama.feed_forward_length": u32(N_FF),
      "llama.attention.head_count": u32(N_HEAD),
      "llama.attention.head_count_kv": u32(N_HEAD),
      "llama.rope.dimension_count": u32(N_EMBD / N_HEAD),
      "llama.attention.layer_norm_rms_epsilon": f32(1e-5),
      "tokenizer.ggml.model": str("llama"),
      "tokenizer.ggml.tokens": { type: "array", of: "string", value: tokens },
      "tokenizer.ggml.scores": { type: "array", of: "float32", value: scores },
      "tokenizer.ggml.token_type": { type: "array", of: "int32", value: types },
      "tokenizer.ggml.unknown_token_id": u32(0),
      "tokenizer.ggml.bos_token_id": u32(1),
      "tokenizer.ggml.eos_token_id": u32(END_OF_TURN),
      "tokenizer.ggml.add_bos_token": { type: "bool", value: false },
      "tokenizer.chat_template": str(CHAT_TEMPLATE),
    },
    tensors,
  );
}

/** mulberry32: small, fast, and the same bytes on every run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

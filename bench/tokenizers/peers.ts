import { createRequire } from 'node:module';
import { clearMergeCache, countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { Tiktoken as JsTiktoken } from 'js-tiktoken/lite';
import o200kRanks from 'js-tiktoken/ranks/o200k_base';

/** A peer o200k counter as the benchmark drives it. */
export interface PeerCounter {
  name: string;
  /** Token count of one text, special-token strings as ordinary text. */
  count: (text: string) => number;
  /** Clears the peer's own cache, if it has one, so every run starts cold. */
  reset: () => void;
}

const ORDINARY = { disallowedSpecial: new Set<string>() };

interface WasmEncoding {
  encode_ordinary(text: string): Uint32Array;
}

/** gpt-tokenizer, js-tiktoken and tiktoken (WebAssembly), each on o200k_base. */
export function createPeerCounters(): PeerCounter[] {
  const jsTiktoken = new JsTiktoken(o200kRanks);
  // tiktoken is CommonJS with a WebAssembly payload; require keeps its sync loader.
  const wasm = createRequire(import.meta.url)('tiktoken') as { get_encoding(name: string): WasmEncoding };
  const wasmO200k = wasm.get_encoding('o200k_base');
  return [
    { name: 'gpt-tokenizer', count: (text) => countTokens(text, ORDINARY), reset: () => clearMergeCache() },
    { name: 'js-tiktoken', count: (text) => jsTiktoken.encode(text, [], []).length, reset: () => {} },
    { name: 'tiktoken (wasm)', count: (text) => wasmO200k.encode_ordinary(text).length, reset: () => {} },
  ];
}

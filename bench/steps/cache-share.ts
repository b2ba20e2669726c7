import { hashText } from '../../src/core/fingerprint.ts';

/** One message of a recorded call: its cost, a content hash, and whether a breakpoint follows it. */
export interface CallBlock {
  hash: string;
  tokens: number;
  breakpoint: boolean;
  /** A system message (instructions). */
  system: boolean;
}

/** A recorded model call as the cache sees it: tool schemas first, then the messages. */
export interface RecordedCall {
  toolTokens: number;
  toolHash: string;
  blocks: CallBlock[];
}

/** Anthropic's rules: a cached prefix ends at a breakpoint, looked up ≤ 20 blocks back, ≥ 1,024 tokens. */
const LOOKBACK = 20;
const MIN_CACHEABLE = 1024;

/**
 * Replays calls through a simulated Anthropic prompt cache and returns, per call, the input
 * tokens it would read from the cache and its total input tokens. A call reads the longest
 * prefix that an earlier call wrote at one of its breakpoints, found by walking back at most
 * 20 blocks from one of this call's breakpoints; it writes a cache entry at each breakpoint.
 * Prefixes shorter than 1,024 tokens are never cached. (TTL is ignored: calls are seconds apart.)
 */
export function simulateCache(calls: readonly RecordedCall[]): { served: number; total: number }[] {
  const written = new Set<string>();
  return calls.map((call) => {
    const prefixHash: string[] = [];
    const prefixTokens: number[] = [];
    let hash = call.toolHash;
    let tokens = call.toolTokens;
    for (const block of call.blocks) {
      hash = hashText(`${hash}|${block.hash}`);
      tokens += block.tokens;
      prefixHash.push(hash);
      prefixTokens.push(tokens);
    }
    let served = 0;
    const breakpoints = call.blocks.flatMap((block, index) => (block.breakpoint ? [index] : []));
    for (const point of breakpoints) {
      for (let index = point; index >= Math.max(0, point - LOOKBACK); index--) {
        if (written.has(prefixHash[index] as string) && (prefixTokens[index] as number) >= MIN_CACHEABLE) {
          served = Math.max(served, prefixTokens[index] as number);
          break;
        }
      }
    }
    for (const point of breakpoints) {
      if ((prefixTokens[point] as number) >= MIN_CACHEABLE) written.add(prefixHash[point] as string);
    }
    return { served, total: tokens };
  });
}

/**
 * The most any prompt cache could serve: per call, the input tokens of blocks (and tool
 * schemas) already sent in an earlier call, in any position. What a call sends for the first
 * time — a new tool output, the reply and query of the last turn, a new placeholder — no cache
 * can serve, so no prefix cache beats this.
 */
export function sentBefore(calls: readonly RecordedCall[]): { again: number; total: number }[] {
  const seen = new Set<string>();
  return calls.map((call) => {
    let again = seen.has(call.toolHash) ? call.toolTokens : 0;
    let total = call.toolTokens;
    seen.add(call.toolHash);
    for (const block of call.blocks) {
      total += block.tokens;
      if (seen.has(block.hash)) again += block.tokens;
      seen.add(block.hash);
    }
    return { again, total };
  });
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prefersWasm, WASM_CJK_SHARE, WASM_MIN_LENGTH } from './wasm-counter.ts';

/** The definition: long enough, and at least a quarter of the characters CJK. */
function reference(text: string): boolean {
  if (text.length < WASM_MIN_LENGTH) return false;
  const cjk = [...text].reduce((sum, character) => {
    const code = character.length === 1 ? character.charCodeAt(0) : 0;
    const isCjk =
      (code >= 0x3000 && code <= 0x9fff) ||
      (code >= 0xac00 && code <= 0xd7af) ||
      (code >= 0xf900 && code <= 0xfaff);
    return sum + (isCjk ? 1 : 0);
  }, 0);
  return cjk >= text.length * WASM_CJK_SHARE;
}

describe('prefersWasm', () => {
  it('decides early exactly as a full scan would', () => {
    const piece = fc.constantFrom('上下文', 'context ', '。', 'かな', '한국어', ' ', 'a', '😀', '工程');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 80 }), (pieces) => {
        const text = pieces.join('');
        expect(prefersWasm(text)).toBe(reference(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('sends Chinese paragraphs to WebAssembly and English ones to JavaScript', () => {
    expect(prefersWasm('上下文工程把每次模型调用的输入编译出来，'.repeat(5))).toBe(true);
    expect(prefersWasm('Context engineering compiles the exact input of each call. '.repeat(3))).toBe(false);
  });
});

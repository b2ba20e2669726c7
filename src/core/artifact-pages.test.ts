import { describe, expect, it } from 'vitest';
import { getTokenCounter } from '../tokenizers/index.ts';
import { createInMemoryArtifactStore, OPEN_ARTIFACT_TOOL } from './artifact-handles.ts';
import { parsePage, readArtifact, recordArtifactPageBudget } from './artifact-pages.ts';
import type { Message } from './message.ts';
import { withTokenCache } from './tokens.ts';
import { placeholderToolResults } from './tool-result-placeholders.ts';

const counter = withTokenCache(getTokenCounter('gpt-4o'));
const chinese = Array.from(
  { length: 120 },
  (_, index) => `第${index + 1}节：领导者把日志条目复制到所有跟随者，并在多数派确认后提交。`,
).join('\n');

function pageMessage(id: string, output: string): Message {
  return {
    id,
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: id,
        toolName: OPEN_ARTIFACT_TOOL,
        output: { type: 'text', value: output },
      },
    ],
  };
}

function outputOf(message: Message | undefined): string {
  const part = Array.isArray(message?.content) ? message.content[0] : undefined;
  return part?.type === 'tool-result' && part.output.type === 'text' ? part.output.value : '';
}

describe('readArtifact', () => {
  it('sizes pages in the last call’s tokens to what it left, and the pages together are the output', () => {
    const store = createInMemoryArtifactStore();
    const { handle } = store.put({ content: chinese, toolName: 'read_file' });
    recordArtifactPageBudget(store, { counter, inputBudget: 12_000, remainingTokens: 1_064 });
    let read = '';
    const pages = [];
    for (let offset: number | undefined = 0; offset !== undefined; ) {
      const page = readArtifact(store, { handle, offset });
      // 1,064 left, less the 64-token margin for the call that asks for the page.
      expect(page.tokens).toBeLessThanOrEqual(1_000);
      expect(page.tokens).toBe(counter.countText(page.output));
      expect(parsePage(page.output)).toEqual({
        handle,
        offset: page.offset,
        end: page.end,
        length: chinese.length,
        text: page.text,
      });
      pages.push(page);
      read += page.text;
      offset = page.nextOffset;
    }
    expect(read).toBe(chinese);
    expect(pages.length).toBeGreaterThan(2);
    // A page ends at a line break; its header names the next page and how many are left.
    expect(pages[0]?.text.endsWith('\n')).toBe(true);
    expect(pages[0]?.output.split('\n')[0]).toBe(
      `[${handle} · characters 0–${pages[0]?.end} of ${chinese.length} · next page: open_artifact {"handle":"${handle}","offset":${pages[0]?.end}} · about ${pages[0]?.pagesLeft} more pages]`,
    );
    expect(pages.at(-1)?.output.split('\n')[0]).toContain('· last page]');
  });

  it('takes 40 % of the input budget without a recorded call, and the model’s maxTokens when smaller', () => {
    const store = createInMemoryArtifactStore();
    const { handle } = store.put({ content: chinese, toolName: 'read_file' });
    const page = readArtifact(store, { handle }, { counter, inputBudget: 2_000 });
    expect(page.tokens).toBeLessThanOrEqual(800);
    expect(page.tokens).toBeGreaterThan(700);
    expect(readArtifact(store, { handle, maxTokens: 100 }, { counter }).tokens).toBeLessThanOrEqual(100);
  });

  it('pages a text without line breaks inside it, never splitting a surrogate pair', () => {
    const store = createInMemoryArtifactStore();
    const content = '数据🚀管道'.repeat(400);
    const { handle } = store.put({ content, toolName: 'search' });
    let read = '';
    for (let offset: number | undefined = 0; offset !== undefined; ) {
      const page = readArtifact(store, { handle, offset, maxTokens: 300 }, { counter });
      expect(page.tokens).toBeLessThanOrEqual(300);
      expect(page.text.length).toBeGreaterThan(0);
      expect(/[\uD800-\uDBFF]$/u.test(page.text)).toBe(false);
      read += page.text;
      offset = page.nextOffset;
    }
    expect(read).toBe(content);
  });

  it('cuts inside a line rather than send a page of the few characters a line break leaves', () => {
    // The page before cut a line three characters from its end; the next line is too long
    // for the room whole.
    const store = createInMemoryArtifactStore();
    const long = '领导者把日志条目复制到所有跟随者，并在多数派确认后提交。'.repeat(4);
    const content = `交。\n${long}\n${long}`;
    const { handle } = store.put({ content, toolName: 'read_file' });
    const page = readArtifact(store, { handle, maxTokens: 100 }, { counter });
    expect(page.tokens).toBeLessThanOrEqual(100);
    expect(page.text.length).toBeGreaterThan(20);
    expect(page.text.startsWith('交。\n领导者')).toBe(true);
    // A line break in the last quarter of the room still ends the page.
    const lines = readArtifact(store, { handle, maxTokens: 150 }, { counter });
    expect(lines.text).toBe(`交。\n${long}\n`);
  });

  it('refuses an unknown handle, an offset past the end and a bad maxTokens with typed errors', () => {
    const store = createInMemoryArtifactStore();
    const { handle } = store.put({ content: 'abc', toolName: 'read_file' });
    expect(() => readArtifact(store, { handle: 'art_00' })).toThrow(
      expect.objectContaining({ code: 'not-found' }),
    );
    expect(() => readArtifact(store, { handle, offset: 4 })).toThrow(
      expect.objectContaining({ code: 'invalid-argument', path: 'offset' }),
    );
    expect(() => readArtifact(store, { handle, maxTokens: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid-argument', path: 'maxTokens' }),
    );
  });
});

describe('placeholderToolResults and open_artifact pages', () => {
  const store = createInMemoryArtifactStore();
  const { handle } = store.put({ content: chinese, toolName: 'read_file' });
  const page = (offset: number, maxTokens: number) =>
    readArtifact(store, { handle, offset, maxTokens }, { counter });
  /** One current page message sized against `pageTokens` (the 40 % limit at 1,000). */
  const sized = (output: string, pageTokens: number) =>
    placeholderToolResults({
      messages: [pageMessage('p1', output)],
      currentFrom: 0,
      policy: { store },
      maxTokens: 1_000,
      pageTokens,
      counter,
    });

  it('never keeps a page as an artifact of its own: above the 40 % limit it stays, within the room', () => {
    const big = page(0, 3_000);
    const result = sized(big.output, 5_000);
    expect(outputOf(result.messages[0])).toBe(big.output);
    expect(result.actions).toEqual([]);
  });

  it('shrinks the newest page to the room left, its header saying where the rest starts', () => {
    const big = page(0, 3_000);
    const result = sized(big.output, 1_200);
    const shrunk = parsePage(outputOf(result.messages[0]));
    expect(shrunk?.offset).toBe(0);
    expect(shrunk?.end).toBeLessThan(big.end);
    expect(shrunk?.text).toBe(chinese.slice(0, shrunk?.end));
    expect(outputOf(result.messages[0])).toContain(`"offset":${shrunk?.end}}`);
    expect(counter.countMessages(result.messages)).toBeLessThanOrEqual(1_200);
    expect(result.actions).toMatchObject([{ type: 'placeholder', handle, reason: 'page-shrunk' }]);
  });

  it('says the newest page did not fit when not a line of it does (never that it was shown)', () => {
    const big = page(0, 3_000);
    const result = sized(big.output, 20);
    expect(outputOf(result.messages[0])).toBe(
      `[${handle} · characters 0–${big.end} of ${chinese.length} did not fit this call's room; call open_artifact with {"handle":"${handle}","offset":0} to read them when the conversation leaves more room]`,
    );
    expect(result.actions).toMatchObject([{ type: 'placeholder', handle, reason: 'page-shrunk' }]);
  });

  it('leaves an older page of the turn, or an earlier turn’s page, as a stub naming its range', () => {
    const first = page(0, 900);
    const second = page(first.end, 900);
    const current = placeholderToolResults({
      messages: [pageMessage('p1', first.output), pageMessage('p2', second.output)],
      currentFrom: 0,
      policy: { store },
      maxTokens: 1_000,
      pageTokens: 1_200,
      counter,
    });
    expect(outputOf(current.messages[1])).toBe(second.output);
    const stub = `[${handle} · characters 0–${first.end} of ${chinese.length} were shown here; call open_artifact with {"handle":"${handle}","offset":0} to read them again]`;
    expect(outputOf(current.messages[0])).toBe(stub);
    const earlier = placeholderToolResults({
      messages: [pageMessage('p1', first.output)],
      currentFrom: 1,
      policy: { store },
      maxTokens: 1_000,
      counter,
    });
    expect(outputOf(earlier.messages[0])).toBe(stub);
    expect(earlier.actions).toMatchObject([{ handle, reason: 'earlier-turn' }]);
  });
});

import { describe, expect, it } from 'vitest';
import { getTokenCounter } from '../tokenizers/index.ts';
import { createInMemoryArtifactStore } from './artifact-handles.ts';
import { compileContext } from './compile.ts';
import type { Message } from './message.ts';
import { readFileMessages } from './tool-reads.test-support.ts';

const counter = getTokenCounter('gpt-4o');

/** A turn of a tool session: the question, a `read_file` call, its output of `lines` lines, the answer. */
function turn(index: number, lines: number): Message[] {
  const id = `t${index}`;
  const text = Array.from(
    { length: lines },
    (_, line) => `${id} line ${line}: the loader retries batch ${line} after a timeout.`,
  ).join('\n');
  return [
    { id: `${id}:q`, role: 'user', content: `Turn ${index}: what does ${id}.md say?` },
    ...readFileMessages(id, text),
    { id: `${id}:a`, role: 'assistant', content: `It says the loader retries (turn ${index}).` },
  ];
}

describe('placeholders in the report', () => {
  it('names only the outputs the call sends: a dropped output is listed by its drop, so the list grows with the window, not the session', async () => {
    const store = createInMemoryArtifactStore();
    const lengths: number[] = [];
    for (const turns of [40, 120]) {
      const history = Array.from({ length: turns }, (_, index) => turn(index, 40)).flat();
      const { report } = await compileContext(
        { systemPrompt: 'You review files.', history, query: 'What changed last?' },
        { counter, window: 8000, toolResults: { store } },
      );
      const historyLayer = report.layers.find((layer) => layer.layer === 'history');
      const kept = new Set(historyLayer?.kept.map((block) => block.id));
      const droppedOutputs = historyLayer?.dropped.filter((block) => block.id.endsWith(':result')) ?? [];
      const placeholders = report.compaction.flatMap((action) =>
        action.type === 'placeholder' ? [action] : [],
      );
      // Earlier outputs are sent behind placeholders, and older ones are dropped.
      expect(placeholders.length).toBeGreaterThan(0);
      expect(droppedOutputs.length).toBeGreaterThan(0);
      for (const action of placeholders) expect(kept.has(action.blockId)).toBe(true);
      // Each earlier output sent is sent behind its placeholder, and listed once.
      expect(placeholders.length).toBe([...kept].filter((id) => id.endsWith(':result')).length);
      lengths.push(placeholders.length);
    }
    // Three times the session, the same window: about as many (the cut's chunk moves), fewer
    // than the shorter session's outputs.
    expect(Math.abs((lengths[1] ?? 0) - (lengths[0] ?? 0))).toBeLessThanOrEqual(2);
    expect(lengths[1]).toBeLessThan(40);
  });
});

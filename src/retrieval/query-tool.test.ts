import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/index.ts';
import { createKnowledgeBase } from './knowledge-base.ts';
import { createQueryTool } from './query-tool.ts';
import { createRetriever } from './retriever.ts';

describe('createQueryTool', () => {
  it('runs the unified retrieval and returns passages with provenance', async () => {
    const kb = createKnowledgeBase({ name: 'handbook' });
    await kb.add([
      {
        id: 'leave',
        text: 'Employees get 25 days of annual leave.',
        provenance: { file: 'hr.md', startLine: 4, endLine: 4 },
      },
      { id: 'laptop', text: 'Laptops are replaced every three years.' },
    ]);
    const queryTool = createQueryTool({
      retriever: createRetriever({ sources: [kb] }),
      counter: createCharCounter(),
    });
    const parsed = await (
      queryTool.inputSchema as { parseAsync?: (value: unknown) => Promise<unknown> }
    ).parseAsync?.({
      query: 'annual leave days',
    });
    expect(parsed).toEqual({ query: 'annual leave days' });
    const output = await queryTool.execute?.({ query: 'annual leave days', maxResults: 1 }, {
      toolCallId: 't1',
      messages: [],
    } as never);
    expect(output).toMatchObject({
      query: 'annual leave days',
      results: [{ id: 'leave', origin: 'handbook', provenance: { file: 'hr.md', startLine: 4, endLine: 4 } }],
    });
  });

  it('rejects an empty query through its schema', async () => {
    const queryTool = createQueryTool({
      retriever: createRetriever({ sources: [] }),
      counter: createCharCounter(),
    });
    const schema = queryTool.inputSchema as unknown as {
      safeParse: (value: unknown) => { success: boolean };
    };
    expect(schema.safeParse({ query: '' }).success).toBe(false);
  });
});

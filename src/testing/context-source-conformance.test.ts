import { type ContextSource, createBlock } from '../core/index.ts';
import { createCharCounter } from './char-counter.ts';
import { describeContextSourceConformance } from './context-source-conformance.ts';

const notes = ['Raft elects one leader per term.', 'Followers reject stale terms.', '领导者负责复制日志。'];

/** A reference source: returns the notes that share a word with the query, within budget. */
function notesSource(): ContextSource {
  return {
    name: 'notes',
    layer: 'knowledge__context',
    priority: 0.6,
    async collect(request, budget) {
      const words = request.query
        .toLowerCase()
        .split(/\W+/u)
        .filter((word) => word.length > 1);
      const blocks = [];
      let used = 0;
      for (const [index, content] of notes.entries()) {
        if (
          !words.some((word) => content.toLowerCase().includes(word)) &&
          !content.includes(request.query.trim() || '\u0000')
        )
          continue;
        const block = createBlock(
          { id: `note-${index}`, layer: 'knowledge__context', source: 'notes', content },
          request.counter,
        );
        if (used + block.tokens > budget.maxTokens) break;
        used += block.tokens;
        blocks.push(block);
      }
      return blocks;
    },
  };
}

describeContextSourceConformance('reference notes source', notesSource, {
  queries: ['raft leader', 'stale terms', '日志'],
  counter: createCharCounter(),
});

import type { ContextBlock, Message, TokenCounter } from '../../src/core/index.ts';
import { createBlock } from '../../src/core/index.ts';
import { loadCmrcParagraphs, loadLocomoTurns } from '../lib/data.ts';

/** A realistic long session: LoCoMo turns as history, CMRC 2018 paragraphs as knowledge. */
export interface BenchSession {
  systemPrompt: string;
  history: Message[];
  knowledge: ContextBlock[];
  query: Message;
  /** Tokens of all history and knowledge text (o200k), before any selection. */
  tokens: number;
}

/**
 * Builds a session of about `targetTokens` (o200k): every LoCoMo conversation's turns in
 * order (the first speaker as `user`, the other as `assistant`) up to ~85% of the target,
 * and Chinese knowledge paragraphs from CMRC 2018 for the rest.
 */
export function buildSession(counter: TokenCounter, targetTokens = 128_000): BenchSession {
  const history: Message[] = [];
  let tokens = 0;
  let firstSpeaker: string | undefined;
  let sample = '';
  for (const turn of loadLocomoTurns()) {
    if (turn.sampleId !== sample) {
      sample = turn.sampleId;
      firstSpeaker = turn.speaker;
    }
    if (tokens >= targetTokens * 0.85) break;
    const content = `${turn.speaker}: ${turn.text}`;
    history.push({
      id: `${turn.sampleId}:${turn.diaId}`,
      role: turn.speaker === firstSpeaker ? 'user' : 'assistant',
      content,
    });
    tokens += counter.countText(content);
  }
  const knowledge: ContextBlock[] = [];
  for (const paragraph of loadCmrcParagraphs()) {
    if (tokens >= targetTokens) break;
    const content = `# ${paragraph.title}\n${paragraph.context}`;
    const block = createBlock(
      {
        id: `cmrc:${paragraph.id}`,
        layer: 'knowledge__context',
        source: 'knowledge',
        content,
        priority: 0.5 + (knowledge.length % 10) / 20,
      },
      counter,
    );
    knowledge.push(block);
    tokens += block.tokens;
  }
  return {
    systemPrompt:
      'You are a helpful assistant with a long memory of this conversation. Answer from the context.',
    history,
    knowledge,
    query: {
      id: 'bench-query',
      role: 'user',
      content: 'What did we talk about last week, and what did you decide?',
    },
    tokens,
  };
}

import type { ContextBlock, ContextSource, Message, TokenCounter } from '../../src/core/index.ts';
import { createBlock, createTokenCounter } from '../../src/core/index.ts';
import { createO200kCounter } from '../../src/tokenizers/index.ts';
import { loadCmrcParagraphs, loadLocomoTurns } from '../lib/data.ts';

/** One knowledge paragraph before it is a block (a source makes the block at compile time). */
export interface KnowledgeText {
  id: string;
  content: string;
  priority: number;
}

/** A realistic long session: LoCoMo turns as history, CMRC 2018 paragraphs as knowledge. */
export interface BenchSession {
  systemPrompt: string;
  history: Message[];
  /** Chinese knowledge paragraphs, as a source receives them (not yet counted). */
  knowledge: KnowledgeText[];
  query: Message;
  /** Tokens of all history and knowledge text (o200k), before any selection. */
  tokens: number;
}

/**
 * Builds a session of about `targetTokens` (o200k): every LoCoMo conversation's turns in
 * order (the first speaker as `user`, the other as `assistant`) up to ~85% of the target,
 * and Chinese knowledge paragraphs from CMRC 2018 for the rest. `counter` only sizes it.
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
  const knowledge: KnowledgeText[] = [];
  for (const paragraph of loadCmrcParagraphs()) {
    if (tokens >= targetTokens) break;
    const content = `# ${paragraph.title}\n${paragraph.context}`;
    knowledge.push({ id: `cmrc:${paragraph.id}`, content, priority: 0.5 + (knowledge.length % 10) / 20 });
    tokens += counter.countText(content);
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

/**
 * A source returning the knowledge paragraphs as blocks made with the compile's counter —
 * what a retrieval or workspace source does, so the compile pays for counting them.
 * `makeBlock`: another checkout's `createBlock` (`bench/ab.ts`); default this one's.
 */
export function knowledgeSource(
  knowledge: readonly KnowledgeText[],
  makeBlock: typeof createBlock = createBlock,
): ContextSource {
  return {
    name: 'knowledge',
    layer: 'knowledge__context',
    priority: 0.6,
    async collect(request): Promise<ContextBlock[]> {
      return knowledge.map((text) =>
        makeBlock(
          {
            id: text.id,
            layer: 'knowledge__context',
            source: 'knowledge',
            content: text.content,
            priority: text.priority,
          },
          request.counter,
        ),
      );
    },
  };
}

/**
 * `session` as a new session would bring it: new message objects, and every text (system
 * prompt, messages, knowledge, query) marked with `mark` so no memo of the process — by object
 * or by content — has seen it. A cold compile of the original objects over and over would
 * find the previous sample's fingerprints, previews and copies waiting.
 */
export function unseenSession(session: BenchSession, mark: number): BenchSession {
  const tag = ` (${mark})`;
  return {
    systemPrompt: marked(session.systemPrompt, tag),
    history: session.history.map((message) => ({
      ...message,
      id: marked(message.id, tag),
      content: marked(String(message.content), tag),
    })),
    knowledge: session.knowledge.map((text) => ({ ...text, content: marked(text.content, tag) })),
    query: { ...session.query, content: marked(String(session.query.content), tag) },
    tokens: session.tokens,
  };
}

/**
 * `text` + `tag` as one flat string. A `+` makes a rope that whoever reads it first flattens (a
 * copy of the text): the timed side that came first would pay for both. Ids too: a session's ids
 * arrive flat (parsed from JSON, or a UUID), and a rope id was flattened inside the timed
 * compile (0.6–2 ms of a 3,667-message cold compile, by `isReservedMessageId`'s `startsWith`).
 */
function marked(text: string, tag: string): string {
  return JSON.parse(JSON.stringify(text + tag)) as string;
}

/**
 * An o200k counter with its tables loaded and every cache empty (the "cold" state).
 * `create`: another checkout's `createO200kCounter` (`bench/ab.ts`); default this one's.
 */
export function loadedCounter(create: typeof createO200kCounter = createO200kCounter) {
  const counter = create();
  counter.countText('warm up the tables');
  counter.countText('表格已加载'.repeat(20));
  counter.bpe.clearCaches();
  return counter;
}

/**
 * A counter that tokenises nothing (a quarter of the length, rounded up): a cold compile with it
 * costs the pipeline's own per-message work — measuring, selecting, composing, the report.
 * `make`: another checkout's `createTokenCounter`; default this one's.
 */
export function freeCounter(make: typeof createTokenCounter = createTokenCounter): TokenCounter {
  return make({ name: 'free (length ÷ 4)', exact: false, countText: (text) => Math.ceil(text.length / 4) });
}

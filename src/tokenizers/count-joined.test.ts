import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ContextSource,
  compileContext,
  countJoined,
  createBlock,
  createOrchestrator,
  createTokenCounter,
  type Message,
  withTokenCache,
} from '../core/index.ts';
import { createCl100kCounter, createO200kCounter } from './exact-counter.ts';
import { isSplitPoint } from './split-points.ts';

// Fragments chosen to meet at every kind of join: letter runs in several scripts and cases,
// contractions, marks, digits, CJK and ASCII punctuation, spaces and newlines of every length.
const FRAGMENTS = [
  'the',
  'The',
  'HTTP',
  'aB',
  "'s",
  "'ll",
  "'",
  'é',
  'e\u0301',
  'Ω',
  'дом',
  'ひらがな',
  'カナ',
  '한국',
  '上下文',
  '工程',
  '中',
  '。',
  '，',
  '「',
  '」',
  '！',
  '…',
  '—',
  '1',
  '23',
  '4567',
  ' ',
  '  ',
  '\t',
  '\n',
  '\n\n',
  '\r\n',
  '.',
  '!?',
  '/',
  '-',
  '#',
  '*',
  '😀',
  '\u3005',
  '〇',
  'ﬁ',
  'İ',
  '\u00A0',
  '\u3000',
];
const text = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 30 }).map((parts) => parts.join(''));
const anyText = fc.oneof(text, fc.string({ unit: 'grapheme', maxLength: 40 }));
const separator = fc.constantFrom('\n\n', '\n', ' ', '', '. ', '\n\n---\n\n', '。');

describe('countJoined', () => {
  for (const [name, counter] of [
    ['o200k_base', createO200kCounter()],
    ['cl100k_base', createCl100kCounter()],
  ] as const) {
    it(`equals a full recount of the joined text (${name})`, () => {
      fc.assert(
        fc.property(fc.array(anyText, { maxLength: 8 }), separator, (parts, joiner) => {
          const counted = parts.map((part) => ({ text: part, tokens: counter.countText(part) }));
          expect(countJoined(counter, counted, joiner)).toBe(counter.countText(parts.join(joiner)));
        }),
        { numRuns: 400 },
      );
    });
  }

  it('equals a full recount for long CJK-heavy blocks (runs of Han characters cut into cached parts)', () => {
    const counter = withTokenCache(createO200kCounter());
    const paragraph = fc
      .array(
        fc.constantFrom(
          '上下文工程',
          '把每次模型调用的输入',
          '编译出来',
          '，',
          '。',
          'LLM',
          ' ',
          '2024',
          '「预算」',
        ),
        {
          minLength: 20,
          maxLength: 60,
        },
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.array(paragraph, { minLength: 2, maxLength: 6 }), (parts) => {
        const counted = parts.map((part) => ({ text: part, tokens: counter.countText(part) }));
        expect(countJoined(counter, counted, '\n\n')).toBe(counter.countText(parts.join('\n\n')));
      }),
      { numRuns: 100 },
    );
  });

  it('splits a count wherever isSplitPoint says so', () => {
    const counter = createO200kCounter();
    fc.assert(
      fc.property(anyText, (value) => {
        for (let index = 1; index < value.length; index++) {
          if (!isSplitPoint(value, index)) continue;
          expect(counter.countText(value)).toBe(
            counter.countText(value.slice(0, index)) + counter.countText(value.slice(index)),
          );
        }
      }),
      { numRuns: 400 },
    );
  });

  it('counts in full with a counter that declares no split points', () => {
    const plain = createO200kCounter();
    const { isSplitPoint: _, ...counter } = plain;
    const parts = [
      { text: 'Hello.', tokens: 2 },
      { text: 'World', tokens: 1 },
    ];
    expect(countJoined(counter, parts, '\n\n')).toBe(plain.countText('Hello.\n\nWorld'));
  });
});

describe('compileContext with an exact counter', () => {
  const paragraphs = [
    `# 上下文\n${'上下文工程把每次模型调用的输入编译出来，并且在预算之内。它统计每个块一次。'.repeat(20)}`,
    `# Budget\n${'Every block is counted once, when it is made; the layer is not counted again. '.repeat(20)}`,
    `# 混合\n${'LLM 的窗口是 128k tokens，「预算」分给各层。'.repeat(20)}`,
  ];
  const measured = () => {
    const exact = createO200kCounter();
    let units = 0;
    const counter = createTokenCounter({
      name: exact.name,
      exact: true,
      countText: (value) => {
        units += value.length;
        return exact.countText(value);
      },
      isSplitPoint,
    });
    return { counter, exact, units: () => units };
  };
  const source: ContextSource = {
    name: 'notes',
    layer: 'knowledge__context',
    priority: 0.5,
    async collect(request) {
      return paragraphs.map((content, index) =>
        createBlock(
          { id: `p${index}`, layer: 'knowledge__context', source: 'notes', content },
          request.counter,
        ),
      );
    },
  };

  it('sends exactly the tokens it reports, and tokenises each block text once', async () => {
    const { counter, exact, units } = measured();
    const { messages, report } = await compileContext(
      { systemPrompt: 'You help.', history: [], query: 'Why?' },
      { counter, window: 8000, sources: [source] },
    );
    const layer = messages.find((message) => message.metadata?.layer === 'knowledge__context');
    // The default order sends this volatile layer as user text just before the query.
    expect(layer?.content).toBe(
      `<context layer="knowledge__context">\n${paragraphs.join('\n\n')}\n</context>`,
    );
    expect(report.totalTokens).toBe(exact.countMessages(messages));
    const blockUnits = paragraphs.reduce((sum, paragraph) => sum + paragraph.length, 0);
    // Blocks once; the layer only around its two joins (before: the whole layer again).
    expect(units()).toBeLessThan(blockUnits * 1.2);
  });

  it('tokenises each history and block text once in a cold compile through an orchestrator (the core bench)', async () => {
    const exact = createO200kCounter();
    const calls: string[] = [];
    const counter = createTokenCounter({
      name: exact.name,
      exact: true,
      countText: (value) => {
        calls.push(value);
        return exact.countText(value);
      },
      isSplitPoint,
    });
    const history: Message[] = Array.from({ length: 60 }, (_, index) => ({
      id: `m${index}`,
      role: index % 2 === 0 ? 'user' : 'assistant',
      content:
        index % 3 === 0
          ? `第${index}条：上下文工程把每次调用的输入编译出来。`
          : `Message ${index}: every text is counted once, when it is measured.`,
    }));
    const query: Message = { id: 'q', role: 'user', content: 'What did we decide about budgets?' };
    const orchestrator = createOrchestrator({
      counter,
      window: 400_000,
      sources: [source],
      allocationRatios: { knowledge: 0.5 },
    });
    const { messages, report } = await orchestrator.build({ systemPrompt: 'You help.', history, query });
    expect(report.totalTokens).toBe(exact.countMessages(messages));
    const texts = [...history.map((message) => message.content as string), ...paragraphs];
    const times = new Map<string, number>();
    for (const value of calls) times.set(value, (times.get(value) ?? 0) + 1);
    for (const value of texts) expect(times.get(value)).toBe(1);
    // Everything else is short: roles, layer frames, the query, the text around each join.
    const others = calls.filter((value) => !texts.includes(value));
    for (const value of others) expect(value.length).toBeLessThan(600);
    const textUnits = texts.reduce((sum, value) => sum + value.length, 0);
    const otherUnits = others.reduce((sum, value) => sum + value.length, 0);
    expect(otherUnits).toBeLessThan(textUnits * 0.05);
  });
});

import { describe, expect, it } from 'vitest';
import { getTokenCounter } from '../tokenizers/index.ts';
import { createInMemoryArtifactStore } from './artifact-handles.ts';
import { readArtifact } from './artifact-pages.ts';
import { createStepCompiler } from './compile-step.ts';
import type { CompiledContext } from './compile-types.ts';
import { type Message, type ToolResultPart, toolOutputText } from './message.ts';
import { withTokenCache } from './tokens.ts';
import { placeholderToolResults } from './tool-result-placeholders.ts';

const counter = withTokenCache(getTokenCounter('gpt-4o'));
const WINDOW = 2000;

/** A system prompt that leaves the history of a 2,000-token window (1,500 of input) ~450 tokens. */
const SYSTEM = Array.from(
  { length: 62 },
  (_, index) => `Rule ${index}: answer from the tool outputs and cite the line you used.`,
).join('\n');

/** A search result of ~550 tokens: under 40 % of the input budget, over what the history has. */
const RESULT = Array.from(
  { length: 32 },
  (_, index) => `line ${index}: the lighthouse note number ${index * 7} was written on day ${index}.`,
).join('\n');

function call(id: string, toolName: string, input: Record<string, unknown>): Message {
  return {
    id: `a-${id}`,
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: id, toolName, input }],
  };
}

function result(id: string, toolName: string, value: string): Message {
  return {
    id: `t-${id}`,
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: id, toolName, output: { type: 'text', value } }],
  };
}

/** The text of the tool results a call sends after its query, by message id. */
function sentResults(compiled: CompiledContext): Map<string, string> {
  const texts = new Map<string, string>();
  for (const message of compiled.steps) {
    if (message.role !== 'tool' || typeof message.content === 'string') continue;
    for (const part of message.content)
      if (part.type === 'tool-result') texts.set(message.id, toolOutputText(part.output));
  }
  return texts;
}

describe('a step output the call has no room for (decision 070)', () => {
  it('is kept as an artifact and read page by page, never dropped', async () => {
    const steps = createStepCompiler({
      request: {
        systemPrompt: SYSTEM,
        history: [
          { id: 'u0', role: 'user', content: 'Remember the lighthouse notes.' },
          { id: 'r0', role: 'assistant', content: 'I will.' },
        ],
        query: 'Which lighthouse notes are there? Search them.',
      },
      options: { counter, window: WINDOW },
    });
    const produced: Message[] = [call('s', 'search', { query: 'lighthouse' }), result('s', 'search', RESULT)];
    let compiled = await steps.compile(produced);
    const assertSent = (made: CompiledContext) =>
      expect(made.report.totalTokens).toBe(
        counter.countMessages(made.messages) + (made.report.tools?.tokens ?? 0),
      );
    assertSent(compiled);
    expect(counter.countText(RESULT)).toBeLessThan(0.4 * compiled.report.inputBudget);
    // The output is sent as a placeholder naming its artifact, and the report says why.
    const placeholder = sentResults(compiled).get('t-s') ?? '';
    expect(placeholder).toMatch(/^\[search output kept as artifact art_[0-9a-f]+/u);
    expect(compiled.report.compaction).toContainEqual(
      expect.objectContaining({ type: 'placeholder', blockId: 'history:t-s', reason: 'no-room' }),
    );
    const handle = /art_[0-9a-f]+/u.exec(placeholder)?.[0] as string;

    // Reading it by pages, as the placeholder says, brings every character of it into the calls.
    let read = '';
    for (let page = 0; page < 20 && read.length < RESULT.length; page++) {
      const opened = readArtifact(steps.store, { handle, offset: read.length });
      produced.push(
        call(`o${page}`, 'open_artifact', { handle }),
        result(`o${page}`, 'open_artifact', opened.output),
      );
      compiled = await steps.compile(produced);
      assertSent(compiled);
      const sent = sentResults(compiled).get(`t-o${page}`) ?? '';
      const text = sent.slice(sent.indexOf('\n') + 1);
      expect(sent.startsWith(`[${handle} · characters ${read.length}–`)).toBe(true);
      expect(RESULT.slice(read.length).startsWith(text)).toBe(true);
      read += text;
    }
    expect(read).toBe(RESULT);
  });
});

describe('placeholderToolResults with fitOutputs', () => {
  const policy = () => ({
    store: createInMemoryArtifactStore(),
    describeParts: () => 'call read_file with {"path":"notes.md","startLine":1,"endLine":40}',
  });
  const messages = [call('r', 'read_file', { path: 'notes.md' }), result('r', 'read_file', RESULT)];
  const fitted = (pageTokens: number) =>
    placeholderToolResults({
      messages,
      currentFrom: 0,
      policy: policy(),
      maxTokens: 10_000,
      counter,
      pageTokens,
      fitOutputs: true,
    });
  const sent = (made: ReturnType<typeof fitted>) =>
    toolOutputText(
      ((made.messages[1] as Message).content as ToolResultPart[])[0]?.output as ToolResultPart['output'],
    );

  it('sends an output that fits whole, and one that does not behind a placeholder with its preview and parts', () => {
    expect(sent(fitted(2000))).toBe(RESULT);
    const placeholder = sent(fitted(300));
    expect(placeholder).toContain('Preview: line 0: the lighthouse note');
    expect(placeholder).toContain('or call read_file with');
    expect(fitted(300).actions).toEqual([expect.objectContaining({ reason: 'no-room', fromTokens: 544 })]);
  });

  it('drops the preview and parts when even they do not fit: the handle and the pages remain', () => {
    const brief = sent(fitted(100));
    expect(brief).toMatch(
      /^\[read_file output kept as artifact art_[0-9a-f]+ \(\d+ chars, 544 tokens\) — call open_artifact with \{"handle":"art_[0-9a-f]+"\} to read it page by page\.\]$/u,
    );
    expect(counter.countText(brief)).toBeLessThan(60);
  });

  it('sizes an output over the limit to the room too: never whole, brief when the full placeholder does not fit', () => {
    const overLimit = (pageTokens: number) =>
      placeholderToolResults({
        messages,
        currentFrom: 0,
        policy: policy(),
        maxTokens: 400,
        counter,
        pageTokens,
        fitOutputs: true,
      });
    // Room for the whole output: still a placeholder, the full one (it is over the limit).
    const roomy = overLimit(2000);
    expect(sent(roomy)).toContain('Preview: line 0: the lighthouse note');
    expect(roomy.actions).toEqual([expect.objectContaining({ reason: 'oversized', fromTokens: 544 })]);
    // Little room: the brief one, which the call's few free tokens can hold (decision 074).
    const tight = overLimit(100);
    expect(sent(tight)).toMatch(
      /^\[read_file output kept as artifact art_[0-9a-f]+ \(\d+ chars, 544 tokens\) — call/u,
    );
    expect(tight.actions).toEqual([expect.objectContaining({ reason: 'oversized', fromTokens: 544 })]);
  });
});

describe('placeholderToolResults with fitOutputs, over a wide turn', () => {
  it('sizes hundreds of outputs newest first: the newest whole, older large ones behind brief placeholders, small ones as they are', () => {
    const store = createInMemoryArtifactStore();
    const messages: Message[] = [];
    for (let step = 0; step < 400; step++) {
      const value = step % 2 === 0 ? `ok ${step}` : `${RESULT.slice(0, 600)} (${step})`;
      messages.push(call(`w${step}`, 'search', { step }), result(`w${step}`, 'search', value));
    }
    const made = placeholderToolResults({
      messages,
      currentFrom: 0,
      policy: { store },
      maxTokens: 10_000,
      counter,
      pageTokens: 600,
      fitOutputs: true,
    });
    const texts = made.messages.map((message) =>
      typeof message.content === 'string' || message.content[0]?.type !== 'tool-result'
        ? undefined
        : toolOutputText(message.content[0].output),
    );
    // The newest large output fits the room whole; the small ones are never replaced.
    expect(texts.at(-1)).toBe(`${RESULT.slice(0, 600)} (399)`);
    expect(texts.at(-3)).toBe('ok 398');
    expect(texts[1]).toBe('ok 0');
    // The large outputs sent whole are the newest few; every older one stands behind a brief
    // placeholder, each reported.
    const large = texts.filter((_text, index) => index % 4 === 3);
    const whole = large.filter((text) => text?.startsWith(RESULT.slice(0, 40))).length;
    expect(whole).toBeGreaterThanOrEqual(1);
    expect(large.slice(-whole).every((text) => text?.startsWith(RESULT.slice(0, 40)))).toBe(true);
    const replaced = made.actions.filter((action) => action.type === 'placeholder');
    expect(replaced).toHaveLength(200 - whole);
    expect(replaced.every((action) => action.type === 'placeholder' && action.reason === 'no-room')).toBe(
      true,
    );
    expect(texts[3]).toMatch(
      /^\[search output kept as artifact art_[0-9a-f]+ \(\d+ chars, \d+ tokens\) — call open_artifact/u,
    );
  });
});

describe('placeholderToolResults with fitOutputs, when the older outputs overrun the room', () => {
  it('turns the oldest pages sent whole into stubs first, so the newest page stays whole and all fits', () => {
    const store = createInMemoryArtifactStore();
    const { handle } = store.put({ content: `${RESULT}\n${RESULT}\n${RESULT}`, toolName: 'read_file' });
    const messages: Message[] = [
      call('r', 'read_file', { path: 'notes.md' }),
      result('r', 'read_file', RESULT.repeat(3)),
    ];
    let offset = 0;
    for (let page = 0; page < 3; page++) {
      const opened = readArtifact(store, { handle, offset }, { pageTokens: 200 });
      messages.push(
        call(`o${page}`, 'open_artifact', { handle, offset }),
        result(`o${page}`, 'open_artifact', opened.output),
      );
      offset = opened.nextOffset ?? 0;
    }
    const fitted = (pageTokens: number) =>
      placeholderToolResults({
        messages,
        currentFrom: 0,
        policy: { store },
        maxTokens: 10_000,
        counter,
        pageTokens,
        fitOutputs: true,
      });
    const sentText = (made: ReturnType<typeof fitted>, index: number) => texts(made)[index] ?? '';
    const texts = (made: ReturnType<typeof fitted>) =>
      made.messages.map((message) =>
        typeof message.content === 'string' || message.content[0]?.type !== 'tool-result'
          ? undefined
          : toolOutputText(message.content[0].output),
      );
    // Room for the three pages whole and the first output's brief placeholder, less a few
    // tokens: the newest-first walk keeps the pages whole and then has no room for the rest.
    const roomy = fitted(10_000);
    const full = sentText(roomy, 1);
    const brief = sentText(fitted(0), 1);
    const room =
      counter.countMessages(roomy.messages) - counter.countText(full) + counter.countText(brief) - 5;
    const made = fitted(room);
    const sent = texts(made);
    expect(counter.countMessages(made.messages)).toBeLessThanOrEqual(room);
    // The newest page is whole; the oldest page gave way to its stub, and the report says so.
    expect(sent[7]).toBe(texts(roomy)[7]);
    expect(sent[3]).toMatch(/^\[art_[0-9a-f]+ · characters 0–\d+ of \d+ were shown here/u);
    expect(made.actions).toContainEqual(
      expect.objectContaining({ blockId: 'history:t-o0', reason: 'page-shrunk' }),
    );
  });
});

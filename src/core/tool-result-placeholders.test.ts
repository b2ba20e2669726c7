import { describe, expect, it } from 'vitest';
import {
  type ArtifactHandle,
  type ArtifactHandleStore,
  createInMemoryArtifactStore,
} from './artifact-handles.ts';
import type { Message } from './message.ts';
import type { CompactionAction } from './report.ts';
import { createTokenCounter, type TokenCounter } from './tokens.ts';
import { readFileMessages } from './tool-reads.test-support.ts';
import { placeholderToolResults, type ToolResultPolicy } from './tool-result-placeholders.ts';

/** A counter of a quarter of the length that notes how many texts it counted. */
function countingCounter() {
  const counted = { texts: 0 };
  const counter = createTokenCounter({
    name: 'quarter',
    exact: false,
    countText: (text) => {
      counted.texts++;
      return Math.ceil(text.length / 4);
    },
  });
  return { counter, counted };
}

/** Six finished turns, each reading a file of ~500 tokens (over the earlier-turn limit of 256). */
function sessionOfReads(): Message[] {
  const messages: Message[] = [];
  for (let turn = 0; turn < 6; turn++) {
    messages.push({ id: `q${turn}`, role: 'user', content: `Read file ${turn}, please.` });
    messages.push(...readFileMessages(`f${turn}`, `File ${turn}: ${'line of the file\n'.repeat(120)}`));
    messages.push({ id: `a${turn}`, role: 'assistant', content: `File ${turn} is read.` });
  }
  return messages;
}

/** The finished turns' outputs replaced under `policy` (everything is an earlier turn's). */
function replaced(messages: readonly Message[], policy: ToolResultPolicy, counter: TokenCounter) {
  return placeholderToolResults({
    messages,
    currentFrom: messages.length,
    policy,
    maxTokens: 10_000,
    counter,
  });
}

const placeholdersOf = (actions: readonly CompactionAction[]) =>
  actions.flatMap((action) => (action.type === 'placeholder' ? [action] : []));

describe('placeholderToolResults', () => {
  it('hands a call with a store of its own the replacements an earlier call made, their outputs put in its store', () => {
    const messages = sessionOfReads();
    const { counter, counted } = countingCounter();
    const call = (store: ArtifactHandleStore) => replaced(messages, { store }, counter);
    const first = createInMemoryArtifactStore();
    const before = call(first);
    expect(placeholdersOf(before.actions)).toHaveLength(6);
    const texts = counted.texts;
    // The session engine and runtime agents give every turn (agent call) a store of its own.
    const second = createInMemoryArtifactStore();
    const after = call(second);
    // The same replacement objects (what later stages keep per message object holds), nothing counted again.
    for (const [index, message] of after.messages.entries()) expect(message).toBe(before.messages[index]);
    expect(counted.texts).toBe(texts);
    expect(after.actions).toEqual(before.actions);
    for (const action of placeholdersOf(after.actions)) {
      const id = action.blockId.replace(/^history:/u, '');
      const original = messages.find((message) => message.id === id) as Message;
      const output = (original.content as { output?: { value: string } }[])[0]?.output?.value;
      expect(second.get(action.handle)).toBe(output);
      expect(second.describe(action.handle)).toEqual(first.describe(action.handle));
    }
  });

  it('puts the outputs again through `put` in a store of another kind', () => {
    const messages = sessionOfReads();
    const { counter } = countingCounter();
    const call = (store: ArtifactHandleStore) => replaced(messages, { store }, counter);
    const before = call(createInMemoryArtifactStore());
    const kept = new Map<string, string>();
    const entries = new Map<string, ArtifactHandle>();
    const inMemory = createInMemoryArtifactStore();
    const own: ArtifactHandleStore = {
      put(input) {
        const entry = inMemory.put(input);
        kept.set(entry.handle, input.content);
        entries.set(entry.handle, entry);
        return entry;
      },
      get: (handle) => kept.get(handle),
      describe: (handle) => entries.get(handle),
    };
    const after = call(own);
    expect(after.messages).toEqual(before.messages);
    const handles = placeholdersOf(after.actions).map((action) => action.handle);
    expect([...kept.keys()].sort()).toEqual([...handles].sort());
  });

  it('replaces a message changed in place again, with the same store', () => {
    const messages = sessionOfReads();
    const store = createInMemoryArtifactStore();
    const { counter } = countingCounter();
    const before = replaced(messages, { store }, counter);
    // A caller's history edited in place: the third message's output is another file now.
    const edited = messages[2] as Message;
    const other = `Another file: ${'a different line\n'.repeat(120)}`;
    edited.content = [
      {
        type: 'tool-result',
        toolCallId: 'f0',
        toolName: 'read_file',
        output: { type: 'text', value: other },
      },
    ];
    const after = replaced(messages, { store }, counter);
    expect(after.messages[2]).not.toBe(before.messages[2]);
    const handle = placeholdersOf(after.actions).find((action) =>
      action.blockId.endsWith('f0:result'),
    )?.handle;
    expect(handle).toBeDefined();
    expect(store.get(handle as string)).toBe(other);
    expect(JSON.stringify(after.messages[2]?.content)).toContain(handle as string);
    // The messages not changed keep their replacements.
    expect(after.messages[6]).toBe(before.messages[6]);
  });

  it('makes the replacements again for another counter or another preview length', () => {
    const messages = sessionOfReads();
    const store = createInMemoryArtifactStore();
    const { counter } = countingCounter();
    const before = replaced(messages, { store }, counter);
    const other = countingCounter();
    const recounted = replaced(messages, { store }, other.counter);
    expect(other.counted.texts).toBeGreaterThanOrEqual(12);
    expect(recounted.messages[2]).not.toBe(before.messages[2]);
    // A store of its own: a store hands back the entry it made first for a content.
    const shorter = replaced(messages, { store: createInMemoryArtifactStore(), previewChars: 20 }, counter);
    const text = (message: Message | undefined) => JSON.stringify(message?.content);
    expect(text(shorter.messages[2]).length).toBeLessThan(text(before.messages[2]).length);
  });
});

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from 'ctxloom';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../sandbox/create-sandbox.ts';
import {
  appendMessages,
  parseMessages,
  readCurationLog,
  readMessages,
  recordCurationEvent,
  recordCurationEvents,
} from './session-store.ts';

let root: string;
let box: Sandbox;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxloom-store-'));
  box = createSandbox({ root });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const message = (id: string): Message => ({ id, role: 'user', content: `text ${id}` });

describe('session store', () => {
  it('appends as a whole rewrite would, and parses the record again only when it changed', async () => {
    const long = (id: string): Message => ({
      id,
      role: 'user',
      content: `长消息 😀 ${id} ${'x'.repeat(3000)}`,
    });
    await appendMessages(box, [long('m1'), long('m2')]);
    await appendMessages(box, [long('m3')]);
    await appendMessages(box, [long('m4'), long('m5')]);
    const text = await readFile(join(root, 'messages.json'), 'utf8');
    const all = ['m1', 'm2', 'm3', 'm4', 'm5'].map(long);
    expect(text).toBe(`${JSON.stringify(all, null, 2)}\n`);
    const first = await readMessages(box);
    const second = await readMessages(box);
    expect(second).toEqual(all);
    // The same parse, handed out in a new array; its messages are frozen.
    expect(second).not.toBe(first);
    expect(second[0]).toBe(first[0]);
    expect(() => {
      (second[0] as Message).content = 'changed';
    }).toThrow(TypeError);
    // An edit by another program is read again.
    await writeFile(join(root, 'messages.json'), JSON.stringify([long('e1')]));
    expect((await readMessages(box)).map((entry) => entry.id)).toEqual(['e1']);
    await appendMessages(box, [long('e2')]);
    expect(JSON.parse(await readFile(join(root, 'messages.json'), 'utf8'))).toEqual([long('e1'), long('e2')]);
  });

  it('checks a record another program changed before appending to it, and writes nothing when it is invalid', async () => {
    await appendMessages(box, [message('m1')]);
    // Edited by hand between two appends: ids are still strings, a content is not text.
    const edited = '[\n  {"id": "m1", "role": "user", "content": 5}\n]\n';
    await writeFile(join(root, 'messages.json'), edited);
    await expect(appendMessages(box, [message('m2')])).rejects.toMatchObject({
      code: 'invalid-config',
      file: 'messages.json',
      path: '0.content',
      line: 2,
    });
    expect(await readFile(join(root, 'messages.json'), 'utf8')).toBe(edited);
    await expect(readMessages(box)).rejects.toMatchObject({ code: 'invalid-config' });
  });

  it('appends concurrently without losing or duplicating messages', async () => {
    await Promise.all(Array.from({ length: 30 }, (_, index) => appendMessages(box, [message(`m${index}`)])));
    const stored = await readMessages(box);
    expect(new Set(stored.map((entry) => entry.id)).size).toBe(30);
  });

  it('refuses a duplicate message id with conflict', async () => {
    await appendMessages(box, [message('m1')]);
    await expect(appendMessages(box, [message('m1')])).rejects.toMatchObject({
      code: 'conflict',
      path: 'm1',
    });
    // A long id is not sent back whole.
    const long = `m-${'x'.repeat(100_000)}`;
    await appendMessages(box, [message(long)]);
    const error = await appendMessages(box, [message(long)]).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'conflict' });
    expect(JSON.stringify(error).length).toBeLessThan(1_000);
  });

  it('reports a malformed message with its index path and line', () => {
    expect(() =>
      parseMessages(
        '[\n  {"id": "a", "role": "user", "content": "x"},\n  {"id": "b", "role": "robot", "content": "y"}\n]',
      ),
    ).toThrow(expect.objectContaining({ code: 'invalid-config', path: '1.role', line: 3 }));
  });

  it('records curation events in an audit log without touching messages.json', async () => {
    await appendMessages(box, [message('m1')]);
    const before = await box.readText('messages.json');
    const event = await recordCurationEvent(
      box,
      { type: 'dismiss', targetMessageId: 'm1', summary: '无关', by: 'model', toolCallId: 'c9' },
      { now: () => new Date('2026-02-01T00:00:00Z'), createId: () => 'e1' },
    );
    expect(event).toEqual({
      type: 'dismiss',
      targetMessageId: 'm1',
      summary: '无关',
      by: 'model',
      toolCallId: 'c9',
      id: 'e1',
      at: '2026-02-01T00:00:00.000Z',
    });
    expect((await readCurationLog(box)).events).toEqual([event]);
    expect(await box.readText('messages.json')).toBe(before);
  });

  it('refuses to curate a message that does not exist', async () => {
    await expect(
      recordCurationEvent(box, { type: 'exclude', targetMessageId: 'ghost', by: 'user' }),
    ).rejects.toMatchObject({
      code: 'not-found',
      path: 'ghost',
    });
  });

  it('stores nothing from a curation batch with an unknown id, and names every unknown id', async () => {
    await appendMessages(box, [message('m1'), message('m2')]);
    await recordCurationEvent(box, { type: 'exclude', targetMessageId: 'm1', by: 'user' });
    const before = await readCurationLog(box);
    await expect(
      recordCurationEvents(box, [
        { type: 'exclude', targetMessageId: 'm2', by: 'user' },
        { type: 'exclude', targetMessageId: 'nope', by: 'user' },
        { type: 'restore', targetMessageId: 'gone', by: 'user' },
      ]),
    ).rejects.toMatchObject({ code: 'not-found', details: { missing: ['nope', 'gone'] } });
    expect(await readCurationLog(box)).toEqual(before);
    const stored = await recordCurationEvents(box, [
      { type: 'exclude', targetMessageId: 'm2', by: 'user' },
      { type: 'restore', targetMessageId: 'm1', by: 'user' },
    ]);
    expect((await readCurationLog(box)).events.slice(-2)).toEqual(stored);
  });
});

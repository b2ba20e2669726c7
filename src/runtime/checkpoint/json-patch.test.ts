import { uuid5 } from '@langchain/langgraph-checkpoint';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeCheckpointRecordWithRecord } from './checkpoint-record.ts';
import { applyJson, checkedPatch, diffJson } from './json-patch.ts';
import {
  decodeWritesRecord,
  encodeWritesRecord,
  uuid5 as fastUuid5,
  type StoredWrite,
} from './writes-record.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('json patches of record headers', () => {
  it('applying a checked patch gives the target (same JSON text when exact)', () => {
    fc.assert(
      fc.property(fc.json(), fc.json(), fc.string(), fc.boolean(), (a, b, base, exact) => {
        const from = JSON.parse(a) as unknown;
        const to = JSON.parse(b) as unknown;
        const patch = checkedPatch(from, to, base, exact);
        const out = applyJson(from, patch, base);
        if (exact) expect(JSON.stringify(out)).toBe(JSON.stringify(to));
        else expect(out).toEqual(to);
      }),
      { numRuns: 300, seed: 17 },
    );
  });

  it('stores versions, timestamps and moved values as small changes', () => {
    const parent = 'f0000000-0000-6000-8000-000000000001';
    const patch = diffJson(
      { ts: '2026-11-25T10:00:00.000Z', versions: { a: 4, b: 2 }, located: { a: '' } },
      { ts: '2026-11-25T10:00:00.250Z', versions: { a: 5, b: 2 }, located: { a: parent } },
      parent,
    );
    expect(patch).toEqual({
      o: { ts: { t: 250 }, versions: { o: { a: { '+': 1 } } }, located: { o: { a: { '^': 0 } } } },
    });
  });

  it('a chained record stores its header and JSON metadata as a patch of its parent and decodes back', async () => {
    const checkpoint = (step: number) => ({
      v: 4,
      ts: `2026-11-25T10:00:0${step}.000Z`,
      channel_versions: {
        ...Object.fromEntries(
          ['namespace', 'session_id', 'todo', 'goal', 'plan', 'timeline'].map((key) => [key, 1]),
        ),
        __start__: 1,
        messages: step,
        'branch:to:agent': step,
      },
      versions_seen: { agent: { 'branch:to:agent': step - 1 } },
    });
    const metadata = (step: number) =>
      bytes(
        JSON.stringify({
          source: 'loop',
          step,
          parents: {},
          counters_since_delta_snapshot: { messages: [step, step + 1] },
        }),
      );
    const common = { compression: 'deflate' as const, values: new Map<string, [string, Uint8Array]>() };
    const parent = await encodeCheckpointRecordWithRecord({
      ...common,
      checkpoint: checkpoint(1),
      metadata: ['json', metadata(1)],
      located: {},
    });
    const parentId = 'f0000000-0000-6000-8000-000000000001';
    const child = await encodeCheckpointRecordWithRecord({
      ...common,
      checkpoint: checkpoint(2),
      metadata: ['json', metadata(2)],
      located: { messages: parentId },
      parent: { id: parentId, record: parent.record },
    });
    expect(child.record.header.checkpoint).toEqual(checkpoint(2));
    expect(child.record.header.located).toEqual({ messages: parentId });
    expect(Buffer.from(child.record.metadata).toString()).toBe(Buffer.from(metadata(2)).toString());
    const whole = await encodeCheckpointRecordWithRecord({
      ...common,
      compression: 'none',
      checkpoint: checkpoint(2),
      metadata: ['json', metadata(2)],
      located: { messages: parentId },
    });
    const patched = await encodeCheckpointRecordWithRecord({
      ...common,
      compression: 'none',
      checkpoint: checkpoint(2),
      metadata: ['json', metadata(2)],
      located: { messages: parentId },
      parent: { id: parentId, record: parent.record },
    });
    // Uncompressed: the patch (changed numbers, the timestamp's delta) against the whole header.
    expect(patched.bytes.byteLength).toBeLessThan(whole.bytes.byteLength * 0.8);
  });
});

describe('writes records', () => {
  it("derive task ids exactly as LangGraph's uuid5 does", () => {
    fc.assert(
      fc.property(fc.string(), fc.uuid(), (name, namespace) => {
        expect(fastUuid5(name, namespace)).toBe(uuid5(name, namespace));
      }),
      { numRuns: 200, seed: 5 },
    );
  });

  it("store LangGraph's pull-task ids as node and trigger, and decode them back", async () => {
    const checkpointId = '1f1e91c5-43a7-67b0-82ed-8fef6464163d';
    const ids = {
      checkpointId,
      step: 5,
      channels: ['messages', 'branch:to:router'],
      nodes: ['__start__', 'router'],
    };
    const pull = uuid5(
      JSON.stringify(['router', '5', 'router', '__pregel_pull', ['branch:to:router']]),
      checkpointId,
    );
    const writes: StoredWrite[] = [
      { taskId: pull, taskPath: '', idx: 0, channel: 'messages', type: 'json', bytes: bytes('[1]') },
      { taskId: 'other-task', taskPath: '', idx: 0, channel: 'messages', type: 'json', bytes: bytes('[2]') },
    ];
    const compact = await encodeWritesRecord({ writes, compression: 'none', ids });
    const whole = await encodeWritesRecord({ writes, compression: 'none' });
    expect(compact.byteLength).toBeLessThan(whole.byteLength);
    expect(Buffer.from(compact).includes(pull)).toBe(false);
    expect(Buffer.from(whole).includes(pull)).toBe(true);
    const plain = (list: StoredWrite[]) => list.map((write) => ({ ...write, bytes: [...write.bytes] }));
    expect(plain(decodeWritesRecord(compact, undefined, ids))).toEqual(plain(writes));
    expect(() => decodeWritesRecord(compact)).toThrow(/task ids/);
  });
});

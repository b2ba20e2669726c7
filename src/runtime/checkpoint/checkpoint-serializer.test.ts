import { types } from 'node:util';
import { AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { DeltaSnapshot, JsonPlusSerializer } from '@langchain/langgraph-checkpoint';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CtxloomError } from '../../core/errors.ts';
import { CheckpointSerializer } from './checkpoint-serializer.ts';

const official = new JsonPlusSerializer();
const ours = new CheckpointSerializer();

/** What a value is, class by class, all the way down: `toEqual` alone ignores prototypes. */
function shape(value: unknown, seen = new Set<unknown>()): unknown {
  if (value === null || typeof value !== 'object') return value === undefined ? '<undefined>' : value;
  if (seen.has(value)) return '<cycle>';
  seen.add(value);
  const kind = Object.getPrototypeOf(value)?.constructor?.name ?? 'null-prototype';
  // By internal slots, not `instanceof`: a `__proto__` key can give a plain object a Map's prototype.
  if (types.isMap(value)) return { kind, entries: [...value].map((entry) => shape(entry, seen)) };
  if (types.isSet(value)) return { kind, items: [...value].map((item) => shape(item, seen)) };
  if (types.isUint8Array(value)) return { kind, bytes: [...value] };
  if (types.isRegExp(value) || types.isNativeError(value)) return { kind, text: String(value) };
  if (Array.isArray(value)) return value.map((item) => shape(item, seen));
  return {
    kind,
    fields: Object.entries(value).map(([key, field]) => [key, shape(field, seen)]),
  };
}

async function both(text: string): Promise<[unknown, unknown]> {
  const settle = (promise: Promise<unknown>) =>
    promise.then(
      (value) => ({ value: shape(value) }),
      (error: Error) => ({ error: error.message }),
    );
  return [await settle(official.loadsTyped('json', text)), await settle(ours.loadsTyped('json', text))];
}

const text = fc.string({ maxLength: 30 });
const message = fc.oneof(
  text.map((content) => new HumanMessage({ content, id: `h-${content.length}` })),
  fc.tuple(text, fc.array(fc.record({ name: text, args: fc.dictionary(text, fc.integer()), id: text }))).map(
    ([content, calls]) =>
      new AIMessage({
        content,
        tool_calls: calls.map((call) => ({ ...call, type: 'tool_call' as const })),
      }),
  ),
  fc.tuple(text, text).map(([content, id]) => new ToolMessage({ content, tool_call_id: id })),
  text.map((content) => new SystemMessage(content)),
  text.map((id) => new RemoveMessage({ id: id || 'x' })),
);
const leaf = fc.oneof(
  text,
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  message,
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(text, fc.constantFrom('lc', 'type', 'id', 'value', '__proto__')), tie('value'), {
      maxKeys: 4,
    }),
    tie('value').map((inner) => new Set([inner])),
    fc.tuple(text, tie('value')).map(([key, inner]) => new Map([[key, inner]])),
    fc.constant(undefined),
    text.map((note) => new Error(note)),
    fc.constant(/a+b/giu),
    fc.uint8Array({ maxLength: 6 }),
    fc.array(message, { maxLength: 4 }).map((items) => new DeltaSnapshot(items)),
  ),
}));

describe('CheckpointSerializer', () => {
  it('reads what JsonPlusSerializer writes as JsonPlusSerializer reads it', async () => {
    await fc.assert(
      fc.asyncProperty(value, async (input) => {
        const [, bytes] = await official.dumpsTyped({ input });
        const [theirs, mine] = await both(new TextDecoder().decode(bytes));
        expect(mine).toEqual(theirs);
      }),
      { numRuns: 300, seed: 38 },
    );
  });

  it('writes the same bytes', async () => {
    await fc.assert(
      fc.asyncProperty(value, async (input) => {
        expect(await ours.dumpsTyped({ input })).toEqual(await official.dumpsTyped({ input }));
        // A channel's snapshot is the value itself (a put writes it at the top).
        const snapshot = new DeltaSnapshot(input as never);
        expect(await ours.dumpsTyped(snapshot)).toEqual(await official.dumpsTyped(snapshot));
      }),
      { numRuns: 100, seed: 39 },
    );
  });

  it('writes the same bytes for values at the edges of plain JSON', async () => {
    const shared = { a: [1, 'x'] };
    const cycle: Record<string, unknown> = { name: 'c' };
    cycle.self = { back: cycle };
    // Two ways back at every level: a walk that only bounded its depth would take 2^depth steps.
    const wide: Record<string, unknown> = {};
    wide.left = wide;
    wide.right = [wide, { up: wide }];
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { k: [true, null] });
    const proto = JSON.parse('{"__proto__":{"a":1},"b":2}') as unknown;
    const cases: unknown[] = [
      { twice: [shared, shared] },
      cycle,
      wide,
      Object.assign(new Array(3), { 0: 1, 2: 3 }), // a hole
      { list: [undefined, 2] },
      { field: undefined },
      { lg_name: 'Send', node: 'n', args: { x: 1 } },
      bare,
      proto,
      { toJSON: () => ({ gone: undefined }) },
      { when: new Date(0) },
      { boxed: Object('text') as unknown },
      { n: [Number.NaN, -0, Number.POSITIVE_INFINITY, 1e21] },
      { text: 'lone \ud800 surrogate, 中文, "quotes"' },
      { calls: [{ report: { layers: [{ kept: [{ id: 'a', tokens: 3, preview: 'p' }], dropped: [] }] } }] },
    ];
    for (const input of cases) {
      expect(await ours.dumpsTyped(input)).toEqual(await official.dumpsTyped(input));
      const snapshot = new DeltaSnapshot(input as never);
      expect(await ours.dumpsTyped(snapshot)).toEqual(await official.dumpsTyped(snapshot));
    }
    // Snapshots as a delta channel holds them: a list, a list under one key, empty, none.
    const snapshots = [
      new DeltaSnapshot([{ id: 'a', text: '中文' }, 2, null] as never),
      new DeltaSnapshot({ entries: [{ report: { dropped: [] } }] } as never),
      new DeltaSnapshot([] as never),
      new DeltaSnapshot(undefined as never),
      new DeltaSnapshot([new HumanMessage({ content: 'hi', id: 'h' })] as never),
      new DeltaSnapshot([new DeltaSnapshot([1] as never)] as never),
    ];
    for (const snapshot of snapshots)
      expect(await ours.dumpsTyped(snapshot)).toEqual(await official.dumpsTyped(snapshot));
  });

  it('reads hand-made records the same way, errors included', async () => {
    const cases = [
      '{"lc":2,"type":"undefined","inner":{"lc":1,"type":"constructor","id":["nowhere","Thing"],"kwargs":{}}}',
      '{"lc":2,"type":"constructor","id":["Set"],"method":null,"args":[[{"lc":2,"type":"undefined"}]],"kwargs":{}}',
      '{"lc":2,"type":"constructor","id":["Map"],"method":null,"args":[[["k"]]],"kwargs":{}}',
      '{"lc":2,"type":"constructor","id":["Object"],"method":"keys","args":[{}],"kwargs":{}}',
      '{"lc":2,"type":"delta_snapshot"}',
      '{"lc":2,"type":"delta_snapshot","value":[{"lc":2,"type":"undefined"}]}',
      '{"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"content":"hi","id":"1"}}',
      '{"lc":1,"type":"constructor","id":["nowhere","Thing"],"kwargs":{}}',
      '{"lc":1,"type":"constructor","id":"not-a-list","kwargs":{}}',
      '{"__proto__":{"lc":2,"type":"undefined"},"a":[1,{"__proto__":null}]}',
      '[{"lc":{"lc":2,"type":"undefined"},"type":"constructor","id":["Set"]}]',
    ];
    for (const json of cases) {
      const [theirs, mine] = await both(json);
      expect(mine, json).toEqual(theirs);
    }
  });

  it('answers a value nested too deeply for the stack with a typed error, writing and reading', async () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < 100_000; level += 1) deep = { next: deep };
    const written = await ours.dumpsTyped(deep).catch((error: unknown) => error);
    expect(CtxloomError.is(written, 'too-large')).toBe(true);
    // JSON.parse takes any depth; reviving it recurses.
    const stored = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const read = await ours.loadsTyped('json', stored).catch((error: unknown) => error);
    expect(CtxloomError.is(read, 'storage-error')).toBe(true);
    // A value of ordinary depth is untouched by the check.
    expect(await ours.loadsTyped(...(await ours.dumpsTyped({ a: [1, { b: 2 }] })))).toEqual({
      a: [1, { b: 2 }],
    });
  });
});

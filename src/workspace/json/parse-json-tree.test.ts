import { CtxloomError } from 'ctxloom';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCompressionFile } from '../../session/compression-file.ts';
import { parseBlockSidecar } from '../blocks/block-sidecar.ts';
import { parseJsonBlocks } from '../blocks/parse-json-blocks.ts';
import { parseContextConfig } from '../config/parse-context-config.ts';
import { parseCurationLog, parseMessages } from '../session/session-store.ts';
import { parseSessionsIndex } from '../session/sessions-index.ts';
import { parseJsonText } from './parse-json-text.ts';
import { MAX_JSON_DEPTH, parseJsonTree, parseJsonTreeByHand } from './parse-json-tree.ts';

/** Every parser of a file ctxloom reads, by the file it names in errors. */
const parsers: [string, (text: string) => unknown][] = [
  ['context-config.json', (text) => parseContextConfig(text, 'context-config.json')],
  ['messages.json', (text) => parseMessages(text, 'messages.json')],
  ['sessions.json', (text) => parseSessionsIndex(text, 'sessions.json')],
  ['memory.json', (text) => parseCurationLog(text, 'memory.json')],
  ['profile.blocks.json', (text) => parseBlockSidecar(text, 'profile.blocks.json')],
  ['tree.json', (text) => parseJsonTree(text, 'tree.json')],
  ['text.json', (text) => parseJsonText(text, 'text.json')],
];

/** What `run` throws (undefined when it returns). */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (caught) {
    return caught;
  }
  return undefined;
}

const badEscapes = ['\\x', '\\2', '\\u12', '\\u12"', '\\uZZZZ', '\\a', '\\U0041', '\\u{41}', '\\0'];

describe('JSON parsers', () => {
  it.each(badEscapes)('report the invalid escape %j as a located parse-error', (badEscape) => {
    const text = `[\n  {"id": "a${badEscape}b"}\n]`;
    for (const [file, parse] of parsers) {
      const error = thrown(() => parse(text));
      expect(CtxloomError.is(error, 'parse-error'), `${file}: ${String(error)}`).toBe(true);
      expect(error).toMatchObject({ file, line: 2 });
      expect((error as CtxloomError).column).toBeGreaterThanOrEqual(12);
    }
  });

  it('name the line and column of a value of the wrong shape, in every file with a schema', () => {
    // The value at fault sits on line 3 in each.
    const cases: [string, (text: string) => unknown, string, string][] = [
      [
        'messages.json',
        (text) => parseMessages(text),
        '[\n  {"id": "m1", "role": "user", "content": "a"},\n  {"id": 7,   ',
        '"role": "user", "content": "b"}\n]',
      ],
      [
        'memory.json',
        (text) => parseCurationLog(text),
        '{\n  "version": 1,\n  "events": [',
        '{"bad": true}]\n}',
      ],
      [
        'sessions.json',
        (text) => parseSessionsIndex(text),
        '[\n  {"id": "s1", "concept": "c", "createdAt": "2026-01-01T00:00:00.000Z"},\n  {"id": 5}',
        ']',
      ],
      [
        'compression.json',
        (text) => parseCompressionFile(text, []),
        '{\n  "version": 3,\n  "revision": ',
        '"x"\n}',
      ],
    ];
    for (const [file, parse, before, after] of cases) {
      const text = `${before}${after}`;
      const error = thrown(() => parse(text));
      expect(CtxloomError.is(error, 'invalid-config'), `${file}: ${String(error)}`).toBe(true);
      expect(error, file).toMatchObject({ file, line: 3 });
      expect((error as CtxloomError).column, file).toBeGreaterThan(1);
      expect((error as CtxloomError).message, file).toMatch(
        new RegExp(`\\(${file.replace('.', '\\.')}:3:\\d+`, 'u'),
      );
    }
  });

  it('refuse valid JSON nested deeper than the limit with a located parse-error', () => {
    // 5,000 levels parse, but JSON.stringify cannot write them back (RangeError).
    const text = `{"a": \n${'['.repeat(5000)}${']'.repeat(5000)}}`;
    for (const [file, parse] of parsers) {
      expect(
        thrown(() => parse(text)),
        file,
      ).toMatchObject({
        code: 'parse-error',
        file,
        line: 2,
        column: MAX_JSON_DEPTH + 1,
      });
    }
  });

  it('decode every valid escape exactly as JSON.parse does', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        const text = JSON.stringify({ value, escaped: value.replace(/./gsu, (c) => c) });
        expect(parseJsonTree(text, 'x.json').value).toEqual(JSON.parse(text));
        const forced = `"${[...value].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`;
        expect(parseJsonTree(forced, 'x.json').value).toBe(JSON.parse(forced));
      }),
    );
  });

  it('never let a raw error escape, whatever the input (fuzz)', () => {
    const seed = JSON.stringify([
      { id: 'm1', role: 'user', content: 'a\\nb "q" \u00e9' },
      { version: 1, events: [], systemPrompt: [{ type: 'global', file: 'system-prompt.md' }] },
    ]);
    const mutated = fc
      .tuple(
        fc.nat({ max: seed.length }),
        fc.nat({ max: 8 }),
        fc.oneof(
          fc.constantFrom(
            ...badEscapes,
            '\\',
            '"',
            '{',
            '[',
            ']',
            '}',
            ',',
            ':',
            '\u0000',
            '\n',
            '1e999',
            '-',
          ),
          fc.string({ unit: 'binary', maxLength: 6 }),
        ),
      )
      .map(([at, cut, insert]) => seed.slice(0, at) + insert + seed.slice(at + cut));
    fc.assert(
      fc.property(fc.oneof(mutated, fc.string({ unit: 'binary', maxLength: 40 })), (text) => {
        for (const [file, parse] of parsers) {
          try {
            parse(text);
          } catch (error) {
            if (!CtxloomError.is(error)) throw error;
            expect(error.file).toBe(file);
            if (error.code === 'parse-error') {
              expect(error.line).toBeGreaterThanOrEqual(1);
              expect(error.column).toBeGreaterThanOrEqual(1);
            } else {
              expect(error.code).toBe('invalid-config');
            }
          }
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('reads numbers of any length, as JSON.parse does, and keeps them as written in blocks', () => {
    // Issue #29: numbers longer than 400 digits were refused.
    const long = `1${'2'.repeat(600)}.5e-3`;
    const text = `{"big": ${long}, "neg": -${'9'.repeat(1000)}}`;
    expect(parseJsonTree(text, 'n.json').value).toEqual(JSON.parse(text));
    expect(parseJsonTreeByHand(text, 'n.json').value).toEqual(JSON.parse(text));
    expect(parseJsonBlocks(text, 'n.json')[0]?.content).toBe(long);
  });

  it('builds the same tree, positions included, through JSON.parse and by hand (property)', () => {
    const spaced = fc
      .tuple(fc.json(), fc.constantFrom(0, 1, 2, '\t'))
      .map(([json, indent]) => JSON.stringify(JSON.parse(json), null, indent));
    fc.assert(
      fc.property(fc.oneof(fc.json(), spaced), (text) => {
        expect(parseJsonTree(text, 'x.json')).toEqual(parseJsonTreeByHand(text, 'x.json'));
      }),
      { numRuns: 1000 },
    );
    const duplicates = '{\n "a": 1,\n "b": [1, {"c": 2}],\n "a": {"d": "\\u00e9"},\n "__proto__": 3\n}';
    expect(parseJsonTree(duplicates, 'd.json')).toEqual(parseJsonTreeByHand(duplicates, 'd.json'));
    expect(parseJsonTree(duplicates, 'd.json').children?.map((child) => child.key)).toEqual([
      'b',
      'a',
      '__proto__',
    ]);
  });

  it('refuses nesting deeper than its limit with a located parse-error', () => {
    const text = `${'['.repeat(MAX_JSON_DEPTH + 5)}${']'.repeat(MAX_JSON_DEPTH + 5)}`;
    expect(() => parseJsonTree(text, 'deep.json')).toThrow(
      expect.objectContaining({
        code: 'parse-error',
        file: 'deep.json',
        line: 1,
        column: MAX_JSON_DEPTH + 2,
      }),
    );
  });
});

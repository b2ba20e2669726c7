import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseContextConfig, safeParseContextConfig } from './parse-context-config.ts';

const errorOf = (text: string) => {
  const result = safeParseContextConfig(text);
  if (result.success) throw new Error('expected an error');
  return result.error;
};

describe('parseContextConfig', () => {
  it('fills defaults for an empty manifest', () => {
    expect(parseContextConfig('{}')).toMatchObject({
      version: 1,
      systemPrompt: [
        { type: 'global', file: 'system-prompt.md' },
        { type: 'session', file: 'session-prompt.md' },
      ],
      profileBlocks: [],
      chatHistory: { source: 'messages.json', strategy: 'full' },
      budget: { window: 32_000, outputReserve: 0.25 },
    });
  });

  it('reads the seed example with both reference kinds', () => {
    const config = parseContextConfig(
      JSON.stringify({
        profileBlocks: ['学习目标', '已有基础'],
        chatHistory: { source: 'messages.json', strategy: 'full' },
        query: '这段是什么意思 [guidance.md:12:30]',
        references: [
          { path: 'guidance.md', startLine: 12, endLine: 30 },
          { path: 'ground-truth.md', block: '薛定谔方程' },
        ],
        injections: [{ source: 'profile.md', block: '基本信息', mode: 'always' }],
      }),
    );
    expect(config.references).toHaveLength(2);
    expect(config.injections[0]).toEqual({
      source: 'profile.md',
      block: '基本信息',
      mode: 'always',
      layer: 'framework__context',
    });
  });

  it('reports an unknown key with its JSON path, line and column', () => {
    const error = errorOf('{\n  "chatHistory": {\n    "strategy": "full",\n    "stratgy": "x"\n  }\n}');
    expect(error).toMatchObject({
      code: 'invalid-config',
      path: 'chatHistory.stratgy',
      line: 4,
      column: 5,
      file: 'context-config.json',
    });
    expect(error.message).toContain('unknown key "stratgy"');
  });

  it('reports a bad value at the value position', () => {
    const error = errorOf('{\n  "chatHistory": { "strategy": "everything" }\n}');
    expect(error).toMatchObject({ path: 'chatHistory.strategy', line: 2, column: 32 });
  });

  it('refuses a file path the sandbox would refuse, where it is written', () => {
    const cases: [string, string, string][] = [
      ['{\n  "profile": "../../etc/passwd"\n}', 'profile', 'path contains ".."'],
      [
        '{\n  "chatHistory": { "source": "/etc/passwd" }\n}',
        'chatHistory.source',
        'absolute paths are not allowed',
      ],
      ['{\n  "references": [{ "path": "a\\\\b.md", "block": "x" }]\n}', 'references.0.path', 'backslash'],
      ['{\n  "retrieval": { "files": ["%2e%2e/x.md"] }\n}', 'retrieval.files.0', 'percent-encoded'],
    ];
    for (const [text, path, reason] of cases) {
      const error = errorOf(text);
      expect(error, text).toMatchObject({ code: 'invalid-config', path, line: 2 });
      expect(error.message, text).toContain(reason);
    }
    // A plain relative path is still fine.
    expect(parseContextConfig('{ "profile": "notes/profile.md" }').profile).toBe('notes/profile.md');
  });

  it('says which shapes a reference takes, and what every shape finds wrong, rather than "Invalid input"', () => {
    const shapes = 'a reference is { path, startLine, endLine } (lines) or { path, block } (a block)';
    // Neither lines nor a block: the two shapes, at the reference.
    const neither = errorOf('{\n  "references": [\n    { "path": "a.md" }\n  ]\n}');
    expect(neither).toMatchObject({ path: 'references.0', line: 3, column: 5 });
    expect(neither.message).toContain(shapes);
    expect(neither.message).not.toContain('Invalid input');
    // A path both shapes refuse is named at the path too, with the shapes.
    const absolute = errorOf('{\n  "references": [\n    { "path": "/etc/passwd" }\n  ]\n}');
    expect(
      (absolute.details!.issues as { path: string; message: string }[]).map((issue) => issue.path),
    ).toEqual(['references.0', 'references.0.path']);
    expect(absolute.message).toContain('references.0.path (3:15): absolute paths are not allowed');
    // What every shape says alone: no list of shapes.
    const number = errorOf('{ "references": [5] }');
    expect(number.message).toContain('expected object, received number');
    expect(number.message).not.toContain(shapes);
  });

  it('locates every problem of a wide config and names the first twenty in its message', () => {
    // 50,000 bad references (one issue at the reference and one at its path each), and an
    // object of 50,000 unknown keys: locating each issue was a search of the siblings.
    const references = Array.from({ length: 50_000 }, () => ({ path: '/abs' }));
    const wide = errorOf(JSON.stringify({ references }, null, 1));
    const issues = wide.details!.issues as { path: string; line: number }[];
    expect(issues).toHaveLength(100_000);
    expect(issues.at(-1)).toMatchObject({ path: 'references.49999.path', line: 150_001 });
    expect(wide.message).toContain('; and 99980 more (details.issues lists every one)');
    expect(wide.message.length).toBeLessThan(4_000);
    const keys = Object.fromEntries(Array.from({ length: 50_000 }, (_, index) => [`k${index}`, index]));
    const unknown = errorOf(JSON.stringify(keys));
    expect((unknown.details!.issues as { path: string }[]).at(-1)?.path).toBe('k49999');
    expect(unknown.message).toContain('and 49980 more');
  });

  it('lists every problem in details', () => {
    const error = errorOf(
      '{ "version": 2, "budget": { "window": 10 }, "references": [{ "path": "a.md", "startLine": 9, "endLine": 3 }] }',
    );
    const paths = (error.details!.issues as { path: string }[]).map((issue) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(['version', 'budget.window', 'references.0.endLine']));
  });

  it('requires lastN for the last-n strategy', () => {
    expect(errorOf('{ "chatHistory": { "strategy": "last-n" } }').path).toBe('chatHistory.lastN');
  });

  it('reports malformed JSON as parse-error with line and column', () => {
    expect(errorOf('{\n  "query": "hi",\n}')).toMatchObject({ code: 'parse-error', line: 3, column: 1 });
  });

  it('answers any text with a config or a located typed error (property)', () => {
    const value = fc.oneof(
      fc.json(),
      fc.constantFrom(
        '"full"',
        '"last-n"',
        '[{"path":"a.md","startLine":3,"endLine":1}]',
        '{"window":100}',
        '{"x":1}',
      ),
    );
    const key = fc.constantFrom(
      'query',
      'chatHistory',
      'references',
      'budget',
      'injections',
      'profileBlocks',
      'version',
      'typo',
    );
    const document = fc.oneof(
      fc.dictionary(key, value, { maxKeys: 4 }).map((entries) => JSON.stringify(entries, null, 2)),
      fc.string({ maxLength: 30 }),
    );
    fc.assert(
      fc.property(document, (text) => {
        const result = safeParseContextConfig(text);
        if (result.success) return;
        expect(['parse-error', 'invalid-config']).toContain(result.error.code);
        expect(result.error.line).toBeGreaterThanOrEqual(1);
        expect(result.error.column).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: 400 },
    );
  });
});

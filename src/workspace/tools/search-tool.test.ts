import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWorkspace, type Workspace } from '../workspace.ts';
import { createWorkspaceToolset } from './create-workspace-toolset.ts';
import { createMatcher } from './search-tool.ts';

const sessionId = 'notes';
let root: string;
let workspace: Workspace;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxloom-search-'));
  await mkdir(join(root, sessionId));
  workspace = openWorkspace({ root });
  await workspace.session(sessionId).writeText('evil.md', `${'a'.repeat(3999)}!\n${'a'.repeat(28)}!\n`);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('createMatcher', () => {
  it('matches catastrophic-backtracking patterns in linear time (RE2) with the right position', () => {
    const nested = createMatcher({ pattern: '(a+)+$', regex: true });
    // On V8's backtracking engine each of these takes longer than the age of the universe.
    expect(nested.test(`${'a'.repeat(100_000)}!`)).toBe(false);
    expect(nested.indexOf(`${'a'.repeat(4000)}!`)).toBe(-1);
    expect(nested.indexOf('xy aaa')).toBe(3);
    expect(createMatcher({ pattern: '(x+x+)+y', regex: true }).test('x'.repeat(50_000))).toBe(false);
  });

  it('reads JavaScript syntax, quotes literals and folds case unless asked not to', () => {
    expect(createMatcher({ pattern: '(?<term>\\d+)\\/x', regex: true }).test('12/x')).toBe(true);
    expect(createMatcher({ pattern: 'a.b(c', regex: false }).test('xa.b(c')).toBe(true);
    expect(createMatcher({ pattern: 'a.b(c', regex: false }).test('xaxb(c')).toBe(false);
    expect(createMatcher({ pattern: 'TERM' }).indexOf('😀 任期 term')).toBe(6);
    expect(createMatcher({ pattern: 'TERM', caseSensitive: true }).test('term')).toBe(false);
  });

  it('rejects invalid patterns, backtracking-only features and huge programs with typed errors', () => {
    for (const pattern of ['(', '(?=a)b', '(a)\\1', '(?<=a)b'])
      expect(() => createMatcher({ pattern, regex: true })).toThrow(
        expect.objectContaining({ code: 'invalid-argument', path: 'pattern' }),
      );
    expect(() => createMatcher({ pattern: '[^x]{1000}[^y]{1000}z', regex: true })).toThrow(
      expect.objectContaining({ code: 'too-large', path: 'pattern' }),
    );
  });
});

describe('search tool', () => {
  it('answers a nested-quantifier pattern over long lines', async () => {
    const tools = createWorkspaceToolset({ workspace, sessionId });
    expect(await tools.search.run({ pattern: '(a+)+$', regex: true, path: 'evil.md' })).toBe(
      'no matches for "(a+)+$"',
    );
    expect(await tools.search.run({ pattern: '(a+)+!$', regex: true, path: 'evil.md' })).toMatch(
      /^evil\.md:1: a{160}…\nevil\.md:2: a{28}!$/u,
    );
  });

  it('stops at the work limit and says where, so one call does bounded work', async () => {
    const lines = Array.from(
      { length: 1000 },
      (_, index) => `line ${String(index).padStart(3, '0')} ${'b'.repeat(91)}`,
    );
    await workspace.session(sessionId).writeText('big.md', `${lines.join('\n')}\n`);
    const size = createMatcher({ pattern: 'line 9\\d\\d ', regex: true }).programSize;
    // Room for exactly 100 lines of 100 characters.
    const tools = createWorkspaceToolset({ workspace, sessionId, maxSearchWork: 100 * 100 * size });
    const output = await tools.search.run({ pattern: 'line 9\\d\\d ', regex: true, path: 'big.md' });
    expect(output).toMatch(
      /^no matches for .*\n\[stopped at big\.md:101 \(0 of 1 files searched\): work limit/u,
    );
    const unlimited = createWorkspaceToolset({ workspace, sessionId, maxSearchResults: 1000 });
    const all = await unlimited.search.run({ pattern: 'line 9\\d\\d ', regex: true, path: 'big.md' });
    expect(all.split('\n')).toHaveLength(100);
  });

  it('leaves the call log out of a folder search and listing unless it is named', async () => {
    // A long session's call log: each record repeats what the call sent, the session's words too.
    await workspace.session(sessionId).writeText('notes.md', '# Terms\n\nA term is a logical clock.\n');
    await mkdir(join(root, sessionId, 'calls'));
    for (let call = 0; call < 60; call++) {
      const record = { id: `call-${call}`, report: { preview: 'A term is a logical clock.' } };
      await writeFile(
        join(root, sessionId, 'calls', `${String(call).padStart(6, '0')}.json`),
        JSON.stringify(record),
      );
    }
    const tools = createWorkspaceToolset({ workspace, sessionId });
    expect(await tools.search.run({ pattern: 'logical clock' })).toBe(
      'notes.md:3: A term is a logical clock.',
    );
    const listing = await tools.list_files.run({});
    expect(listing.split('\n').filter((line) => line.startsWith('calls'))).toEqual([
      "calls/\t(ctxloom's log of the model calls: not listed or searched unless named)",
    ]);
    expect(listing).toContain('notes.md\t');
    // Named, it is searched and listed like any folder.
    const named = await tools.search.run({ pattern: 'logical clock', path: 'calls' });
    expect(named.split('\n').slice(0, 2)).toEqual([
      'calls/000000.json:1: {"id":"call-0","report":{"preview":"A term is a logical clock."}}',
      'calls/000001.json:1: {"id":"call-1","report":{"preview":"A term is a logical clock."}}',
    ]);
    expect(named).toContain('[truncated: 60 matching lines, showed 50; narrow the path or pattern]');
    expect((await tools.list_files.run({ dir: 'calls' })).split('\n')).toHaveLength(60);
  });
});

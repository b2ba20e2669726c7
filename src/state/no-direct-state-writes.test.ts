import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../src/', import.meta.url).pathname;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

// `state[...] = …` or `state.field = …` (not `==`/`===`): a write that bypasses StateBuilder.
const DIRECT_WRITE = /\bstate(?:\[[^\]\n]+\]|\.[A-Za-z_]\w*)\s*(?:=(?!=)|\+=|-=|\?\?=|\|\|=)/;

describe('the source tree', () => {
  it('has no direct state[...] = writes outside StateBuilder', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(root)) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (DIRECT_WRITE.test(line)) offenders.push(`${relative(root, file)}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });

  it('recognises the write forms it forbids', () => {
    expect(DIRECT_WRITE.test("state['messages'] = []")).toBe(true);
    expect(DIRECT_WRITE.test('state.todo = null')).toBe(true);
    expect(DIRECT_WRITE.test('if (state.todo === null) return')).toBe(false);
  });
});

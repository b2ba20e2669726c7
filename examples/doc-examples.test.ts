import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asDocumented, exampleFiles, fencesOf, REPO, readPage } from './doc-examples.test-support.ts';

/** README.md and every page of docs/ (decision records are records, not pages). */
async function pages(): Promise<string[]> {
  const docs = (await readdir(join(REPO, 'docs'))).filter((name) => name.endsWith('.md')).sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

/** Whether a test of the file's folder imports it (`'./name.ts'`), or the file is a test. */
async function isRun(file: string): Promise<boolean> {
  if (file.endsWith('.test.ts')) return true;
  const folder = dirname(file);
  const tests = (await readdir(join(REPO, folder))).filter((name) => name.endsWith('.test.ts'));
  for (const test of tests) {
    const text = await readFile(join(REPO, folder, test), 'utf8');
    if (text.includes(`'./${basename(file)}'`)) return true;
  }
  return false;
}

describe('the code blocks of README.md and docs/*.md', () => {
  it('each runs in a test, or says on the line before it which test runs it or why nothing can', async () => {
    const quotable = new Map<string, string>();
    for (const file of await exampleFiles()) {
      quotable.set(asDocumented(await readFile(join(REPO, file), 'utf8')), file);
    }
    const problems: string[] = [];
    const quoted: string[] = [];
    for (const page of await pages()) {
      const text = await readPage(page);
      const name = basename(page);
      for (const fence of fencesOf(text)) {
        const where = `${page}:${fence.line} (${fence.language || 'no language'})`;
        if (fence.language === '')
          problems.push(`${where}: name the block's language (\`text\` for a diagram)`);
        else if (fence.language === 'text') continue;
        else if (fence.marker?.kind === 'not run') {
          if (fence.marker.text.length < 20) problems.push(`${where}: say why it cannot run`);
          for (const file of fence.marker.text.match(/[\w.-]+(?:\/[\w.-]+)+\.[a-z]+/gu) ?? []) {
            if (!existsSync(join(REPO, file))) problems.push(`${where}: ${file} does not exist`);
          }
        } else if (fence.marker?.kind === 'run by') {
          const files = fence.marker.text.match(/[\w.-]+(?:\/[\w.-]+)+/gu) ?? [];
          if (files.length === 0) problems.push(`${where}: 'run by' names no file`);
          for (const file of files) {
            if (!existsSync(join(REPO, file))) problems.push(`${where}: ${file} does not exist`);
          }
          const runner =
            files[0] === undefined ? '' : await readFile(join(REPO, files[0]), 'utf8').catch(() => '');
          if (!runner.includes(name)) problems.push(`${where}: ${files[0]} does not read ${name}`);
        } else if (fence.language === 'ts') {
          const file = quotable.get(fence.code);
          if (file === undefined) problems.push(`${where}: not a file of examples/ quoted whole`);
          else if (!(await isRun(file))) problems.push(`${where}: ${file} is run by no test of its folder`);
          else quoted.push(file);
        } else problems.push(`${where}: no '<!-- run by: … -->' or '<!-- not run: … -->' on the line before`);
      }
    }
    expect(problems).toEqual([]);
    expect(quoted.length).toBeGreaterThan(10);
  });

  it('reads fences, their languages and markers', () => {
    const text = [
      '<!-- not run: the seed’s interface, not ctxloom’s -->',
      '```python',
      'x = 1',
      '```',
      '',
      '```ts',
      "const a = 'b';",
      '```',
    ].join('\n');
    expect(fencesOf(text)).toEqual([
      {
        language: 'python',
        code: 'x = 1',
        line: 2,
        marker: { kind: 'not run', text: 'the seed’s interface, not ctxloom’s' },
      },
      { language: 'ts', code: "const a = 'b';", line: 6 },
    ]);
  });
});

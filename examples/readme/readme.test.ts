import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_LONG_SESSION } from '../../src/session/compile-session.ts';
import { parseContextConfig } from '../../src/workspace/config/parse-context-config.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** The example as the README shows it: imports by package name. */
function asDocumented(source: string): string {
  return source
    .replaceAll("'../../src/core/index.ts'", "'ctxloom'")
    .replace(/'\.\.\/\.\.\/src\/([a-z-]+)\/index\.ts'/gu, "'ctxloom/$1'")
    .trim();
}

describe('the README', () => {
  it("quotes examples/readme/compile-a-context.ts whole as 'Compile a context', and it runs", async () => {
    const readme = await readFile(`${REPO}README.md`, 'utf8');
    const section = readme.slice(readme.indexOf('## Compile a context'));
    const block = /```ts\n([\s\S]*?)```/u.exec(section)?.[1]?.trim();
    const file = await readFile(`${REPO}examples/readme/compile-a-context.ts`, 'utf8');
    expect(block).toBe(asDocumented(file));
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...values: unknown[]) => {
      lines.push(values.join(' '));
    });
    try {
      await import('./compile-a-context.ts');
    } finally {
      log.mockRestore();
    }
    // The report, then the offline model's answer, which quotes the notes it was sent.
    expect(lines[0]).toMatch(/knowledge__context/u);
    expect(lines[1]?.length ?? 0).toBeGreaterThan(20);
  });
});

describe("the README's session example", () => {
  it("quotes examples/readme/run-a-session.ts whole as 'Run a session', and it runs", async () => {
    const readme = await readFile(`${REPO}README.md`, 'utf8');
    const section = readme.slice(readme.indexOf('## Run a session'));
    const block = /```ts\n([\s\S]*?)```/u.exec(section)?.[1]?.trim();
    const file = await readFile(`${REPO}examples/readme/run-a-session.ts`, 'utf8');
    expect(block).toBe(asDocumented(file));
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...values: unknown[]) => {
      lines.push(values.join(' '));
    });
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await import('./run-a-session.ts');
    } finally {
      log.mockRestore();
      write.mockRestore();
    }
    expect(lines[0]).toMatch(/^next call: \d+ tokens$/u);
    // The last logged call is the turn's; /compress made none.
    expect(Number(lines[1])).toBeGreaterThan(0);
  });
});

describe("the README's long-session settings", () => {
  it('are a valid chatHistory of a manifest, and its values are the defaults the engine uses', async () => {
    const readme = await readFile(`${REPO}README.md`, 'utf8');
    const section = readme.slice(readme.indexOf('## Long sessions'));
    const block = /```json\n([\s\S]*?)```/u.exec(section)?.[1] ?? '';
    const manifest = parseContextConfig(`{ "version": 1, ${block} }`, 'README.md');
    expect(manifest.chatHistory.longSession).toEqual(DEFAULT_LONG_SESSION);
  });
});

import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_LONG_SESSION } from '../../src/session/long-session-settings.ts';
import { parseContextConfig } from '../../src/workspace/config/parse-context-config.ts';
import { blocksOf, expectQuotedWhole, readPage } from '../doc-examples.test-support.ts';

describe('the README', () => {
  it("quotes compile-a-context.ts ('Compile a context') and run-a-session.ts ('Run a session') whole", async () => {
    await expectQuotedWhole('README.md', [
      'examples/readme/compile-a-context.ts',
      'examples/readme/run-a-session.ts',
    ]);
    const readme = await readPage('README.md');
    expect(readme.indexOf('## Compile a context')).toBeLessThan(readme.indexOf('## Run a session'));
  });

  it("runs 'Compile a context'", async () => {
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
  it("runs 'Run a session'", async () => {
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
    const readme = await readPage('README.md');
    const section = readme.slice(readme.indexOf('## Long sessions'));
    const [block = ''] = await blocksOf('README.md', 'json');
    expect(section.indexOf(block)).toBeGreaterThan(0);
    const manifest = parseContextConfig(`{ "version": 1, ${block} }`, 'README.md');
    expect(manifest.chatHistory.longSession).toEqual(DEFAULT_LONG_SESSION);
  });
});

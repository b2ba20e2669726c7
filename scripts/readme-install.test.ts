import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without declarations
import { readCliCommands, readInstallTable, snippetInstalls } from './readme-install.mjs';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

interface Snippet {
  section: string;
  code: string;
  subpaths: string[];
  packages: string[];
  rowPackages: string[];
  unlisted: string[];
}

describe("the README's snippets, as check:packed installs them", () => {
  it('gives each snippet the packages of the rows of the ctxloom subpaths it imports', () => {
    const snippets: Snippet[] = snippetInstalls(README);
    expect(
      snippets.map(({ section, subpaths, packages, rowPackages, unlisted }) => ({
        section,
        subpaths,
        packages,
        rowPackages,
        unlisted,
      })),
    ).toEqual([
      {
        section: 'Compile a context',
        subpaths: ['.', './llm', './tokenizers'],
        packages: ['ai'],
        rowPackages: ['ai'],
        unlisted: [],
      },
      {
        section: 'Run a session: one engine for every entry point',
        subpaths: ['./llm', './session', './workspace'],
        packages: [],
        rowPackages: ['@langchain/core', '@langchain/langgraph', '@langchain/langgraph-checkpoint', 'ai'],
        unlisted: [],
      },
    ]);
    expect(snippets[0]?.code).toContain("import { createOfflineModel } from 'ctxloom/llm';");
  });

  it('names what a snippet imports that its rows leave out, so a wrong row fails the check', () => {
    // The ctxloom/llm row without `ai`: the first snippet imports `ai` itself and no row of
    // its subpaths names it any more.
    const wrong = README.replace(/^\| `ctxloom\/llm` \| `ai` \|/mu, '| `ctxloom/llm` | nothing more |');
    expect(wrong).not.toBe(README);
    const [compile] = snippetInstalls(wrong) as Snippet[];
    expect(compile?.rowPackages).toEqual([]);
    expect(compile?.unlisted).toEqual(['ai']);
    // A subpath in no row.
    const rows = readInstallTable(README).filter(
      (row: { subpaths: string[] }) => !row.subpaths.includes('./session'),
    );
    const [, session] = snippetInstalls(README, rows) as Snippet[];
    expect(session?.unlisted).toEqual(['ctxloom/session (in no row)']);
  });
});

describe("the README's npx commands", () => {
  it('reads each as its arguments, quoted words kept whole and <dir> filled in', () => {
    expect(readCliCommands(README, 'examples/notebook/raft-consensus')).toEqual([
      ['chat', 'examples/notebook/raft-consensus', 'What is a term?'],
      ['chat', 'examples/notebook/raft-consensus', '/compress'],
      ['calls', 'examples/notebook/raft-consensus', '--show', '-1'],
    ]);
  });

  it('finds the commands that run a session in the ctxloom/session row, which names the packages they need', () => {
    const rows: { subpaths: string[]; commands: string[]; packages: string[] }[] = readInstallTable(README);
    const session = rows.find((row) => row.subpaths.includes('./session'));
    expect(session?.commands).toEqual([
      'ctxloom compile',
      'ctxloom preview',
      'ctxloom chat',
      'ctxloom calls',
      'ctxloom curation',
    ]);
    expect(session?.packages).toEqual([
      'ai',
      '@langchain/langgraph',
      '@langchain/langgraph-checkpoint',
      '@langchain/core',
    ]);
    expect(rows.flatMap((row) => row.commands).filter((command) => /demo|blocks/u.test(command))).toEqual([]);
  });
});

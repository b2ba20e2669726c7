import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { getTokenCounter } from '../../src/tokenizers/index.ts';
import { parseMarkdownBlocks } from '../../src/workspace/blocks/parse-markdown-blocks.ts';
import { compileWorkspaceContext } from '../../src/workspace/compile/compile-workspace-context.ts';
import { parseReferences } from '../../src/workspace/references/parse-references.ts';
import { createSandbox } from '../../src/workspace/sandbox/create-sandbox.ts';
import { openWorkspace } from '../../src/workspace/workspace.ts';
import type { BenchContext, BenchMetric, BenchSuiteOutput } from '../lib/index.ts';
import { measureInterleaved, median, megabytesPerSecond } from '../lib/index.ts';

const example = fileURLToPath(new URL('../../examples/notebook/', import.meta.url));
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * Workspace suite: compile of the example session cold (new workspace, new token cache) and
 * warm (caches filled); a 1 MB Markdown file into blocks against bare `fromMarkdown` + GFM
 * (interleaved, wall and CPU time); the slowest single generated input of the block and
 * reference parsers (issue target: < 100 ms); sandboxed reads against `fs.readFile`.
 */
export async function run(context: BenchContext): Promise<BenchSuiteOutput> {
  const metrics: BenchMetric[] = [];
  const runs = context.runs;

  // ---- compile of the example session
  const compileOnce = (
    fresh: boolean,
    workspace = openWorkspace({ root: example }),
    counter = getTokenCounter('gpt-4o'),
  ) =>
    compileWorkspaceContext({
      workspace: fresh ? openWorkspace({ root: example }) : workspace,
      sessionId: 'raft-consensus',
      counter: fresh ? getTokenCounter('gpt-4o', { cache: {} }) : counter,
    });
  const firstStart = performance.now();
  const first = await compileOnce(true);
  const firstMs = performance.now() - firstStart;
  const cold: number[] = [];
  const warm: number[] = [];
  const workspace = openWorkspace({ root: example });
  const counter = getTokenCounter('gpt-4o', { cache: {} });
  await compileOnce(false, workspace, counter);
  for (let index = 0; index < Math.max(10, runs); index++) {
    let start = performance.now();
    await compileOnce(true);
    cold.push(performance.now() - start);
    start = performance.now();
    await compileOnce(false, workspace, counter);
    warm.push(performance.now() - start);
  }
  context.log(
    `compile: ${first.messages.length} messages, ${first.report.totalTokens} tokens (${first.report.counter})`,
  );
  metrics.push(
    { name: 'compile.example.first-in-process', value: round(firstMs), unit: 'ms' },
    { name: 'compile.example.cold', value: round(median(cold)), unit: 'ms' },
    {
      name: 'compile.example.warm',
      value: round(median(warm)),
      unit: 'ms',
      target: 'warm recompile < 50 ms',
    },
  );

  // ---- 1 MB Markdown into blocks, interleaved with the bare parser
  const markdown = await oneMegabyteMarkdown();
  const bytes = Buffer.byteLength(markdown);
  const [ours, peer] = measureInterleaved(
    [
      { name: 'ctxloom', run: () => parseMarkdownBlocks(markdown, 'big.md').length },
      {
        name: 'mdast',
        run: () =>
          fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }).children
            .length,
      },
    ],
    { runs },
  );
  if (ours === undefined || peer === undefined) throw new Error('measurement missing');
  context.log(`markdown: ${bytes} bytes, ${String(ours.output)} top-level blocks`);
  const peerName = 'mdast-util-from-markdown + GFM (tree only)';
  metrics.push(
    {
      name: 'parse.markdown-1mb.wall',
      value: round(megabytesPerSecond(bytes, ours.medianMs)),
      unit: 'MB/s',
      peer: { name: peerName, value: round(megabytesPerSecond(bytes, peer.medianMs)) },
    },
    {
      name: 'parse.markdown-1mb.cpu',
      value: round(megabytesPerSecond(bytes, ours.medianCpuMs)),
      unit: 'MB/s',
      peer: { name: peerName, value: round(megabytesPerSecond(bytes, peer.medianCpuMs)) },
    },
  );

  // ---- slowest single generated input
  const line = fc.oneof(
    fc.constantFrom(
      '# A',
      '## B',
      '### 子',
      'text',
      '',
      '```',
      '---',
      '===',
      '> # q',
      '- # li',
      '    # code',
      '[a.md:1:2]',
    ),
    fc.string({ maxLength: 40 }),
  );
  let worstBlocks = 0;
  let worstReferences = 0;
  for (const lines of fc.sample(fc.array(line, { maxLength: 200 }), { numRuns: 500, seed: 42 })) {
    const text = lines.join('\n');
    let start = performance.now();
    parseMarkdownBlocks(text, 'fuzz.md');
    worstBlocks = Math.max(worstBlocks, performance.now() - start);
    start = performance.now();
    try {
      parseReferences(text);
    } catch {
      // reversed ranges are typed errors, expected here
    }
    worstReferences = Math.max(worstReferences, performance.now() - start);
  }
  metrics.push(
    { name: 'fuzz.block-parser.worst-input', value: round(worstBlocks), unit: 'ms', target: '< 100 ms' },
    {
      name: 'fuzz.reference-parser.worst-input',
      value: round(worstReferences),
      unit: 'ms',
      target: '< 100 ms',
    },
  );

  // ---- sandboxed read vs fs.readFile
  const sandbox = createSandbox({ root: `${example}raft-consensus` });
  const guarded: number[] = [];
  const direct: number[] = [];
  for (let index = 0; index < 200; index++) {
    let start = performance.now();
    await sandbox.readText('ground-truth.md');
    guarded.push((performance.now() - start) * 1000);
    start = performance.now();
    await readFile(`${example}raft-consensus/ground-truth.md`, 'utf8');
    direct.push((performance.now() - start) * 1000);
  }
  metrics.push({
    name: 'sandbox.read-text',
    value: round(median(guarded), 1),
    unit: 'µs',
    peer: { name: 'fs.readFile (no checks)', value: round(median(direct), 1) },
  });

  return {
    metrics,
    notes: {
      example: {
        messages: first.messages.length,
        totalTokens: first.report.totalTokens,
        counter: first.report.counter,
      },
      markdownBytes: bytes,
    },
  };
}

async function oneMegabyteMarkdown(): Promise<string> {
  const source = await readFile(`${example}raft-consensus/ground-truth.md`, 'utf8');
  const guidance = await readFile(`${example}raft-consensus/guidance.md`, 'utf8');
  const parts: string[] = [];
  let size = 0;
  for (let chapter = 1; size < 1024 * 1024; chapter++) {
    const part = `# 第 ${chapter} 章\n\n${source.replace(/^# /mu, '## ')}\n\n${guidance.replace(/^# /mu, '## ')}\n\n\`\`\`go\n# not a heading ${chapter}\nfunc f() {}\n\`\`\`\n`;
    parts.push(part);
    size += Buffer.byteLength(part);
  }
  return parts.join('\n');
}

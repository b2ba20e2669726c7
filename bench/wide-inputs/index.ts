import { CtxloomError } from '../../src/core/index.ts';
import { syncBlockSidecar } from '../../src/workspace/blocks/block-sidecar.ts';
import { parseJsonBlocks } from '../../src/workspace/blocks/parse-json-blocks.ts';
import { parseMarkdownDocument } from '../../src/workspace/blocks/parse-markdown-blocks.ts';
import { mergeReferences } from '../../src/workspace/compile/merge-references.ts';
import { parseJsonTree, parseJsonTreeByHand } from '../../src/workspace/json/parse-json-tree.ts';
import type { BenchContext, BenchMetric, BenchSuiteOutput } from '../lib/index.ts';
import { measureInterleaved } from '../lib/index.ts';
import { deepLists, manyHeadings, manyMissingReferences, wideJsonObject, wideTable } from './cases.ts';

const round = (value: number) => Math.round(value);

/** Runs `work` once; its wall time and whether it returned or threw a typed error (and which). */
function once(work: () => unknown): { ms: number; outcome: string } {
  const start = performance.now();
  let outcome = 'ok';
  try {
    work();
  } catch (error) {
    if (!CtxloomError.is(error)) throw error;
    outcome = error.code;
  }
  return { ms: performance.now() - start, outcome };
}

/**
 * Wide-inputs suite (issue #27 item 5, decision 043): the wall time of each single input the
 * issue measured, through the function a route calls — one run each (the point is the worst
 * case, not a median), with whether it parsed or was refused as `too-large`. Target: < 2 s each.
 */
export async function run(context: BenchContext): Promise<BenchSuiteOutput> {
  const metrics: BenchMetric[] = [];
  const notes: Record<string, string> = {};
  const record = (name: string, work: () => unknown) => {
    const { ms, outcome } = once(work);
    context.log(`${name}: ${round(ms)} ms (${outcome})`);
    metrics.push({ name, value: round(ms), unit: 'ms', target: '< 2000 ms' });
    notes[name] = outcome;
  };

  record('markdown.table-200x2000', () => parseMarkdownDocument(wideTable(), 'table.md'));
  const headings = manyHeadings();
  record('markdown.headings-20000', () => parseMarkdownDocument(headings, 'headings.md'));
  record('markdown.lists-31x4000', () => parseMarkdownDocument(deepLists(), 'lists.md'));
  record('json.object-100000-keys', () => parseJsonBlocks(wideJsonObject(), 'keys.json'));

  // Short ids of 20,000 sections against a sidecar where every heading and body changed (no
  // path or fingerprint matches, so each block looks for a similar vanished heading).
  const sections = manyHeadings(20_000);
  const { blocks } = parseMarkdownDocument(sections, 'sections.md');
  const previous = syncBlockSidecar({ file: 'sections.md', blocks }).sidecar;
  const changed = sections.replace(/Heading/gu, 'Titel').replace(/body/gu, 'text');
  const renamed = parseMarkdownDocument(changed, 'sections.md').blocks;
  record('sidecar.renamed-20000', () => syncBlockSidecar({ file: 'sections.md', blocks: renamed, previous }));

  // 300 block references to a 20,000-heading file, none of which exists (each asks for a fuzzy search).
  const big = parseMarkdownDocument(headings, 'big.md');
  const lookup = (path: string) =>
    path === 'big.md' ? { path, lines: big.lines, blocks: big.blocks } : undefined;
  record('references.missing-300', () =>
    mergeReferences({ query: manyMissingReferences('big.md'), references: [], lookup }),
  );
  // Issue #29: the JSON tree parser (JSON.parse + a position walk) against the hand-written one.
  const json = wideJsonObject();
  const [native, hand] = measureInterleaved(
    [
      { name: 'JSON.parse + walk', run: () => parseJsonTree(json, 'keys.json').children?.length },
      { name: 'hand-written', run: () => parseJsonTreeByHand(json, 'keys.json').children?.length },
    ],
    { runs: context.runs },
  );
  if (native === undefined || hand === undefined) throw new Error('measurement missing');
  metrics.push({
    name: 'json.tree-100000-keys',
    value: Math.round(native.medianMs),
    unit: 'ms',
    peer: { name: 'hand-written parser (errors only)', value: Math.round(hand.medianMs) },
  });
  return { metrics, notes };
}

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchContext, type BenchMetric, median } from '../lib/index.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * What each side does in a new process, timed from its first line: import the counter and
 * count one short text with o200k — what a CLI command, a serverless function's cold start or
 * a new worker waits for before its first compile. ctxloom runs from `dist/` (the built
 * package its users import), the peers from `node_modules`.
 */
const SIDES: { name: string; script: string }[] = [
  {
    name: 'ctxloom',
    script: `const { getTokenCounter } = await import('ctxloom/tokenizers');
      getTokenCounter('gpt-4o').countText('hello 你好');`,
  },
  {
    name: 'gpt-tokenizer',
    script: `const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
      countTokens('hello 你好');`,
  },
  {
    name: 'tiktoken (wasm)',
    script: `const { get_encoding } = await import('tiktoken');
      get_encoding('o200k_base').encode_ordinary('hello 你好');`,
  },
];

/** One side's time to its first count in a new process: wall and CPU (all threads), ms. */
function firstCount(script: string): { wall: number; cpu: number } {
  const timed = `const cpu0 = process.cpuUsage(); const wall0 = performance.now();
    ${script}
    const cpu = process.cpuUsage(cpu0);
    process.stdout.write(JSON.stringify({ wall: performance.now() - wall0, cpu: (cpu.user + cpu.system) / 1000 }));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', timed], {
    cwd: root,
    encoding: 'utf8',
  });
  return JSON.parse(output) as { wall: number; cpu: number };
}

/** Newest modification time under `folder` (ms), `.ts` and `.js` files only; 0 when it is missing. */
function newest(folder: string): number {
  if (!existsSync(folder)) return 0;
  let time = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.(?:ts|js)$/u.test(entry.name)) continue;
    time = Math.max(time, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return time;
}

/**
 * Time to the first o200k count in a new process, ctxloom against gpt-tokenizer and tiktoken
 * (wasm): the sides alternate, `context.runs` processes each, medians. Skipped, with a note,
 * when `dist/` is missing or older than the sources it is built from (`npm run build`).
 */
export function measureFirstCount(context: BenchContext): { metrics: BenchMetric[]; notes: string[] } {
  const built = newest(join(root, 'dist', 'tokenizers'));
  if (Math.max(newest(join(root, 'src', 'tokenizers')), newest(join(root, 'src', 'core'))) > built) {
    return {
      metrics: [],
      notes: ['o200k.first-count skipped: dist/ is older than src/ (run npm run build)'],
    };
  }
  const samples = SIDES.map(() => ({ wall: [] as number[], cpu: [] as number[] }));
  for (let run = 0; run < Math.max(3, context.runs); run++) {
    for (const [at, side] of SIDES.entries()) {
      const { wall, cpu } = firstCount(side.script);
      samples[at]?.wall.push(wall);
      samples[at]?.cpu.push(cpu);
    }
  }
  const metrics: BenchMetric[] = [];
  for (const measure of ['wall', 'cpu'] as const) {
    const medians = samples.map((sample) => median(sample[measure]));
    const [ours = 0, ...peers] = medians;
    const fastest = Math.min(...peers);
    const fastestName = SIDES[medians.indexOf(fastest)]?.name ?? '';
    for (const [at, value] of peers.entries()) {
      metrics.push({
        name: `o200k.first-count.${measure}.${SIDES[at + 1]?.name.split(' ')[0]}`,
        value: ours,
        unit: 'ms',
        peer: { name: SIDES[at + 1]?.name ?? '', value },
      });
    }
    metrics.push({
      name: `o200k.first-count.${measure}.vs-fastest`,
      value: ours / fastest,
      unit: 'x',
      peer: { name: fastestName, value: 1 },
      better: 'lower',
    });
  }
  return { metrics, notes: [] };
}

/**
 * Benchmark runner: `npm run bench` runs every suite, `npm run bench -- <suite> [<suite>…]`
 * runs the named ones. A suite is a folder `bench/<suite>/` whose `index.ts` exports
 * `run(context)` returning metrics; each result is printed and written to
 * `bench/results/<suite>.json`.
 */
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type BenchContext,
  type BenchSuite,
  createBenchResult,
  formatBenchResult,
  speedProbe,
  writeBenchResult,
} from './lib/index.ts';

const benchDirectory = fileURLToPath(new URL('.', import.meta.url));
const NOT_SUITES = new Set(['lib', 'results', 'node_modules']);

function discoverSuites(): string[] {
  return readdirSync(benchDirectory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !NOT_SUITES.has(entry.name))
    .filter((entry) => existsSync(`${benchDirectory}${entry.name}/index.ts`))
    .map((entry) => entry.name)
    .sort();
}

const available = discoverSuites();
const requested = process.argv.slice(2).filter((argument) => !argument.startsWith('-'));
const unknown = requested.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`Unknown suite(s): ${unknown.join(', ')}. Available: ${available.join(', ')}`);
  process.exit(2);
}
const suites = requested.length > 0 ? requested : available;
const runs = Math.max(5, Number(process.env.BENCH_RUNS ?? 5) || 5);
const context: BenchContext = { log: (message) => console.error(`  ${message}`), runs };

let failed = 0;
for (const name of suites) {
  console.error(`▶ ${name}`);
  try {
    const suite = (await import(`./${name}/index.ts`)) as BenchSuite;
    speedProbe.take();
    const output = await suite.run(context);
    const { retimed, keptSlow } = speedProbe.take();
    if (retimed > 0 || keptSlow > 0)
      context.log(
        `timed again because the machine ran slow beside them (speed probe): ${retimed} runs; kept slow after ${keptSlow === 1 ? 'one run' : `${keptSlow} runs`} tried four times`,
      );
    const { metrics, ...extra } = Array.isArray(output) ? { metrics: output } : output;
    // Environment fields always come from the runner, so every result file agrees on them.
    const result = { ...extra, ...createBenchResult(name, metrics) };
    const path = writeBenchResult(result);
    console.log(`${formatBenchResult(result)}\n→ ${path}\n`);
  } catch (error) {
    failed++;
    console.error(`✖ ${name} failed:`, error);
  }
}
process.exit(failed > 0 ? 1 : 0);

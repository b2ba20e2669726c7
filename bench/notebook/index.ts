/**
 * bench/notebook — the notebook UI on a long session, in Chromium (playwright-core, headless).
 * The example session gets `BENCH_NOTEBOOK_TURNS` (default 1,000) real turns through the chat
 * route with the offline model (~2 min); then each run opens it in a fresh browser context
 * and measures the open (navigation → every message present → the page idle), the main
 * thread's long tasks, one more turn typed and sent (the history reload when its answer is
 * stored), that answer's call report opened from its chip and closed, and a scroll up through
 * twenty screens of history.
 *
 * `BENCH_NOTEBOOK_BASE=<another checkout>/dist/web` measures that build too, as the peer, on
 * its own copy of the same session, runs alternated (A B, B A, …) so load hits both alike.
 * `CHROMIUM_PATH` names the browser (default Debian's `/usr/bin/chromium`).
 */
import { access, cp, rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { chromium } from 'playwright-core';
import { ensureWebBuild } from '../../src/server/ensure-web-build.ts';
import type { NotebookServer } from '../../src/server/index.ts';
import { type BenchContext, type BenchMetric, median } from '../lib/index.ts';
import { createLongSession, questionOf, serveWorkspace } from './long-session.ts';
import { measurePage, type PageSample } from './measure-page.ts';

interface Candidate {
  name: string;
  webRoot: string;
  root: string;
  server: NotebookServer;
  samples: PageSample[];
}

const METRICS: { key: keyof PageSample; name: string; unit: string }[] = [
  { key: 'openMs', name: 'open.to-idle', unit: 'ms' },
  { key: 'openLongTaskMs', name: 'open.long-tasks', unit: 'ms' },
  { key: 'openTaskMs', name: 'open.main-thread', unit: 'ms' },
  { key: 'openScriptMs', name: 'open.script', unit: 'ms' },
  { key: 'openLayoutMs', name: 'open.layout', unit: 'ms' },
  { key: 'elements', name: 'open.elements', unit: 'elements' },
  { key: 'reloadMs', name: 'turn.history-reload', unit: 'ms' },
  { key: 'turnLongTaskMs', name: 'turn.long-tasks', unit: 'ms' },
  { key: 'turnTaskMs', name: 'turn.main-thread', unit: 'ms' },
  { key: 'reportOpenMs', name: 'report-open.to-idle', unit: 'ms' },
  { key: 'reportOpenTaskMs', name: 'report-open.main-thread', unit: 'ms' },
  { key: 'reportCloseMs', name: 'report-close.to-idle', unit: 'ms' },
  { key: 'reportCloseTaskMs', name: 'report-close.main-thread', unit: 'ms' },
  { key: 'scrollLongTaskMs', name: 'scroll-20-screens.long-tasks', unit: 'ms' },
  { key: 'scrollLongestTaskMs', name: 'scroll-20-screens.longest-task', unit: 'ms' },
  { key: 'scrollTaskMs', name: 'scroll-20-screens.main-thread', unit: 'ms' },
];

export async function run(context: BenchContext) {
  // Checked first: making the session takes minutes, and a missing browser would fail after them.
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  await access(executablePath).catch(() => {
    throw new Error(
      `the notebook suite needs Chromium at ${executablePath} (Debian: apt-get install chromium; or set CHROMIUM_PATH); the other suites do not`,
    );
  });
  const turns = Number(process.env.BENCH_NOTEBOOK_TURNS ?? 1000);
  const webRoot = await ensureWebBuild(context.log);
  if (webRoot === undefined) throw new Error('the web UI could not be built (npm run build:web)');
  const builds = [
    { name: 'this tree', webRoot },
    ...(process.env.BENCH_NOTEBOOK_BASE ? [{ name: 'base', webRoot: process.env.BENCH_NOTEBOOK_BASE }] : []),
  ];
  const root = await createLongSession({ turns, webRoot, log: context.log });
  const candidates: Candidate[] = [];
  const browser = await chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const notes: string[] = [];
  try {
    // Each build gets its own copy: every run adds a turn, so both sessions grow alike.
    for (const [index, build] of builds.entries()) {
      const copy = `${root}-${index}`;
      await cp(root, copy, { recursive: true });
      candidates.push({
        ...build,
        root: copy,
        server: await serveWorkspace(copy, build.webRoot),
        samples: [],
      });
    }
    let added = 0;
    // One untimed round first (Chromium's caches, the server's first loads), then the runs.
    for (let round = -1; round < context.runs; round++) {
      const order = round % 2 === 0 ? candidates : [...candidates].reverse();
      for (const candidate of order) {
        const sample = await measurePage({
          browser,
          server: candidate.server,
          chips: turns + added,
          question: questionOf(2 * (turns + added)),
        });
        const line = `${candidate.name} ${round < 0 ? 'warm-up' : `run ${round + 1}`}: ${format(sample)}, load ${loadavg()[0]?.toFixed(2)}`;
        context.log(line);
        if (round >= 0) {
          candidate.samples.push(sample);
          notes.push(line);
        }
      }
      added++;
    }
  } finally {
    await browser.close();
    for (const candidate of candidates) {
      await candidate.server.close();
      await rm(candidate.root, { recursive: true, force: true });
    }
    await rm(root, { recursive: true, force: true });
  }
  const [current, base] = candidates;
  const metrics: BenchMetric[] = METRICS.map(({ key, name, unit }) => ({
    name: `${name}.turns-${turns}`,
    value: median(current?.samples.map((sample) => sample[key]) ?? []),
    unit,
    better: 'lower',
    ...(base === undefined
      ? {}
      : { peer: { name: 'base build', value: median(base.samples.map((sample) => sample[key])) } }),
  }));
  return { metrics, notes };
}

function format(sample: PageSample): string {
  const ms = (value: number) => `${Math.round(value)}`;
  return `open ${ms(sample.openMs)} ms (long tasks ${ms(sample.openLongTaskMs)}, main thread ${ms(sample.openTaskMs)}: script ${ms(sample.openScriptMs)}, layout ${ms(sample.openLayoutMs)}; ${sample.elements} elements), reload ${ms(sample.reloadMs)} ms (turn: long tasks ${ms(sample.turnLongTaskMs)}, main thread ${ms(sample.turnTaskMs)}), report open ${ms(sample.reportOpenMs)} ms (main thread ${ms(sample.reportOpenTaskMs)}), close ${ms(sample.reportCloseMs)} ms (main thread ${ms(sample.reportCloseTaskMs)}), scroll: long tasks ${ms(sample.scrollLongTaskMs)} (longest ${ms(sample.scrollLongestTaskMs)}), main thread ${ms(sample.scrollTaskMs)}`;
}

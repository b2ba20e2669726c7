import { type CompileReport, diffReports } from '../../src/core/index.ts';
import { reports } from './recipe-environment.ts';

if (reports.length < 2) throw new Error('run a recipe above first: it collects the reports');
const [previous, current] = reports.slice(-2) as [CompileReport, CompileReport];
const diff = diffReports(previous, current);
console.log(
  diff.added.map((block) => block.id),
  diff.removed.map((block) => [block.id, block.reason?.type]),
);
console.log(`${diff.cache.cachedTokens} cached, ${diff.cache.uncachedTokens} new`);

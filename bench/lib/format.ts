import type { BenchMetric, BenchResult } from './result.ts';

const HIGHER_IS_BETTER = new Set(['MB/s', 'ops/s', 'x', 'tokens/s', 'recall', '']);

/** True when a larger value of `unit` is better (throughput); false for times, sizes, errors. */
export function higherIsBetter(unit: string): boolean {
  return HIGHER_IS_BETTER.has(unit);
}

/**
 * How many times better `metric` is than its peer (> 1 = ctxloom ahead), or undefined when
 * there is no peer. For lower-is-better units the ratio is peer ÷ value.
 */
export function peerRatio(metric: BenchMetric): number | undefined {
  if (metric.peer === undefined || metric.peer.value === 0 || metric.value === 0) return undefined;
  const higher = metric.better === undefined ? higherIsBetter(metric.unit) : metric.better === 'higher';
  return higher ? metric.value / metric.peer.value : metric.peer.value / metric.value;
}

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const magnitude = Math.abs(value);
  return magnitude >= 100 ? value.toFixed(0) : magnitude >= 10 ? value.toFixed(1) : value.toFixed(2);
}

/** A plain-text table of a suite's metrics with ratios against peers. */
export function formatBenchResult(result: BenchResult): string {
  const rows = result.metrics.map((metric) => {
    const ratio = peerRatio(metric);
    return [
      metric.name,
      `${formatNumber(metric.value)} ${metric.unit}`,
      metric.peer ? `${metric.peer.name}: ${formatNumber(metric.peer.value)} ${metric.unit}` : '',
      ratio === undefined ? '' : `${ratio.toFixed(2)}×`,
      metric.target ?? '',
    ];
  });
  const header = ['metric', 'ctxloom', 'peer', 'ratio', 'target'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [
    `${result.suite} — node ${result.node}, ${result.cpus} × ${result.cpuModel}, ${result.date}`,
    line(header),
    line(widths.map((width) => '-'.repeat(width))),
    ...rows.map(line),
  ].join('\n');
}

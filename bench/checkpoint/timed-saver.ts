import type { BaseCheckpointSaver } from '@langchain/langgraph';

/**
 * Wraps a saver's `put` to record each call's wall time (ms), tagged with the current
 * turn, without changing what it does. Returns the samples array.
 */
export function timePuts(saver: BaseCheckpointSaver): {
  samples: { turn: number; ms: number }[];
  setTurn(turn: number): void;
} {
  const samples: { turn: number; ms: number }[] = [];
  let turn = 0;
  const put = saver.put.bind(saver);
  saver.put = async (...args: Parameters<BaseCheckpointSaver['put']>) => {
    const start = performance.now();
    const result = await put(...args);
    samples.push({ turn, ms: performance.now() - start });
    return result;
  };
  return {
    samples,
    setTurn(next) {
      turn = next;
    },
  };
}

/** Median of numbers (0 for none). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Median put latency over the given turns (inclusive, 0-based). */
export function putLatency(
  samples: readonly { turn: number; ms: number }[],
  from: number,
  to: number,
): number {
  return median(
    samples.filter((sample) => sample.turn >= from && sample.turn <= to).map((sample) => sample.ms),
  );
}

import {
  allocateWithRatios,
  type BudgetManager,
  type BudgetManagerOptions,
  createBudgetManager,
  DEFAULT_ALLOCATION_RATIOS,
} from './budget.ts';
import { CtxloomError } from './errors.ts';
import type { TaskPhase } from './source.ts';

/** Multipliers applied to a source's ratio in each phase (1 = unchanged). */
export type PhaseShiftTable = Record<TaskPhase, Record<string, number>>;

/**
 * Seed 001's shifts: early favours retrieval (background), mid the recent turns
 * (coherence), late the important memories (synthesis). Keys are source names.
 */
export const DEFAULT_PHASE_SHIFTS: PhaseShiftTable = {
  early: { retrieval: 1.5, L1_recent: 0.8, history: 0.8, L2_important: 0.9 },
  mid: { retrieval: 0.9, L1_recent: 1.3, history: 1.3, L2_important: 1 },
  late: { retrieval: 0.7, L1_recent: 1, history: 1, L2_important: 1.5 },
};

/** Options of {@link createAdaptiveBudgetManager}. */
export interface AdaptiveBudgetManagerOptions extends BudgetManagerOptions {
  /** Ratio multipliers per phase; default {@link DEFAULT_PHASE_SHIFTS}. */
  shifts?: PhaseShiftTable;
  /** Progress thresholds (0..1) where `mid` and `late` start. Default `[1/3, 2/3]`. */
  phaseBoundaries?: readonly [number, number];
}

/** Derives the phase from a 0..1 progress signal. */
export function phaseFromProgress(
  progress: number,
  boundaries: readonly [number, number] = [1 / 3, 2 / 3],
): TaskPhase {
  if (!(progress >= 0 && progress <= 1)) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `progress must be within 0..1, got ${progress}`,
      path: 'progress',
    });
  }
  if (progress < boundaries[0]) return 'early';
  if (progress < boundaries[1]) return 'mid';
  return 'late';
}

/**
 * A budget manager whose ratios shift with the task phase (seed 001's
 * `AdaptiveBudgetManager`). The phase is given, or derived from `progress`; without either
 * the base ratios apply. Shifted ratios are rescaled so they never sum to more than the
 * base ratios did — a phase moves tokens between sources, it never creates them.
 */
export function createAdaptiveBudgetManager(options: AdaptiveBudgetManagerOptions): BudgetManager {
  const base = createBudgetManager(options);
  const ratios = options.allocationRatios ?? DEFAULT_ALLOCATION_RATIOS;
  const shifts = options.shifts ?? DEFAULT_PHASE_SHIFTS;
  const boundaries = options.phaseBoundaries ?? [1 / 3, 2 / 3];
  return {
    window: base.window,
    outputReserveRatio: base.outputReserveRatio,
    allocate(input) {
      const phase =
        input.phase ??
        (input.progress === undefined ? undefined : phaseFromProgress(input.progress, boundaries));
      if (phase === undefined) return base.allocate(input);
      const shifted = shiftRatios(ratios, shifts[phase], input.sources);
      return allocateWithRatios(base.window, base.outputReserveRatio, shifted, { ...input, phase });
    },
  };
}

/** Applies multipliers, then rescales to the base sum (over the sources present). */
export function shiftRatios(
  ratios: Readonly<Record<string, number>>,
  multipliers: Readonly<Record<string, number>>,
  sources: readonly string[],
): Record<string, number> {
  const present = sources.filter((name) => ratios[name] !== undefined);
  const baseSum = present.reduce((sum, name) => sum + (ratios[name] ?? 0), 0);
  const shifted: Record<string, number> = {};
  let shiftedSum = 0;
  for (const name of present) {
    const value = (ratios[name] ?? 0) * (multipliers[name] ?? 1);
    shifted[name] = value;
    shiftedSum += value;
  }
  if (shiftedSum > 0) {
    const scale = baseSum / shiftedSum;
    for (const name of present) shifted[name] = (shifted[name] ?? 0) * scale;
  }
  return shifted;
}

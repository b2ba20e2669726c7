import { CtxloomError } from './errors.ts';
import type { TaskPhase } from './source.ts';

/** Input of {@link BudgetManager.allocate}. */
export interface AllocateInput {
  /** Names of the sources (and the `history` pseudo-source) taking part in this compile. */
  sources: readonly string[];
  /** Tokens already committed to layers that are never compacted (system, framework, query). */
  fixedTokens: number;
  phase?: TaskPhase;
  /** 0..1 progress through the task; used to derive the phase when `phase` is absent. */
  progress?: number;
}

/** The token plan of one compile. All values are tokens. */
export interface BudgetPlan {
  /** The model's context window. */
  window: number;
  /** Held back for the model's answer: `floor(window × outputReserveRatio)`. */
  outputReserve: number;
  /** `window − outputReserve`: the most the input may use. */
  inputBudget: number;
  /** Tokens of the never-compacted layers. */
  fixedTokens: number;
  /** `max(0, inputBudget − fixedTokens)`: what sources share. */
  available: number;
  /** Each source's allocation in tokens, real-valued (sums to at most `available`). */
  allocations: Record<string, number>;
  /** The unallocated remainder, handed to sources that want more (priority order). */
  unallocated: number;
  phase?: TaskPhase;
}

/** Splits a window between sources (seed 001's `BudgetManager`). */
export interface BudgetManager {
  readonly window: number;
  readonly outputReserveRatio: number;
  allocate(input: AllocateInput): BudgetPlan;
}

/** Options of {@link createBudgetManager}. */
export interface BudgetManagerOptions {
  /** The model's context window in tokens (integer ≥ 1). */
  modelContextWindow: number;
  /** Share of the window held back for the output, 0 ≤ r < 1. Default 0.25. */
  outputReserveRatio?: number;
  /**
   * Share of `available` per source name, each in 0..1, summing to ≤ 1. Sources without a
   * ratio split what the listed ones leave, equally. The default gives `history` 0.5.
   */
  allocationRatios?: Record<string, number>;
}

/** The history's default share when no ratios are given. */
export const DEFAULT_ALLOCATION_RATIOS: Readonly<Record<string, number>> = { history: 0.5 };

/**
 * A budget manager with fixed ratios. Allocations are `ratio × available` (real-valued, so
 * allocations grow monotonically with the window); the share no ratio claims goes to
 * `unallocated`, which the selector
 * hands to sources whose blocks did not fit, in priority order.
 * @example
 * const budget = createBudgetManager({ modelContextWindow: 128_000, allocationRatios: { history: 0.4, retrieval: 0.2 } });
 */
export function createBudgetManager(options: BudgetManagerOptions): BudgetManager {
  const window = options.modelContextWindow;
  const reserveRatio = options.outputReserveRatio ?? 0.25;
  const ratios = options.allocationRatios ?? DEFAULT_ALLOCATION_RATIOS;
  validateBudgetOptions(window, reserveRatio, ratios);
  return {
    window,
    outputReserveRatio: reserveRatio,
    allocate: (input) => allocateWithRatios(window, reserveRatio, ratios, input),
  };
}

/** Computes a {@link BudgetPlan} from ratios (shared by the fixed and adaptive managers). */
export function allocateWithRatios(
  window: number,
  reserveRatio: number,
  ratios: Readonly<Record<string, number>>,
  input: AllocateInput,
): BudgetPlan {
  const outputReserve = Math.floor(window * reserveRatio);
  const inputBudget = window - outputReserve;
  const available = Math.max(0, inputBudget - input.fixedTokens);
  const listed = input.sources.filter((name) => ratios[name] !== undefined);
  const unlisted = input.sources.filter((name) => ratios[name] === undefined);
  const listedSum = listed.reduce((sum, name) => sum + (ratios[name] ?? 0), 0);
  const unlistedShare = unlisted.length > 0 ? Math.max(0, 1 - listedSum) / unlisted.length : 0;
  const allocations: Record<string, number> = {};
  let allocated = 0;
  for (const name of input.sources) {
    const share = ratios[name] ?? unlistedShare;
    // Real-valued on purpose: floor() would make the unallocated remainder jump as the
    // window grows, and a bigger budget could then drop a block a smaller one kept.
    const tokens = share * available;
    allocations[name] = tokens;
    allocated += tokens;
  }
  const plan: BudgetPlan = {
    window,
    outputReserve,
    inputBudget,
    fixedTokens: input.fixedTokens,
    available,
    allocations,
    unallocated: Math.max(0, available - allocated),
  };
  if (input.phase !== undefined) plan.phase = input.phase;
  return plan;
}

function validateBudgetOptions(
  window: number,
  reserveRatio: number,
  ratios: Readonly<Record<string, number>>,
) {
  if (!Number.isInteger(window) || window < 1) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `modelContextWindow must be an integer ≥ 1, got ${window}`,
      path: 'modelContextWindow',
    });
  }
  if (!(reserveRatio >= 0 && reserveRatio < 1)) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `outputReserveRatio must be within [0, 1), got ${reserveRatio}`,
      path: 'outputReserveRatio',
    });
  }
  let sum = 0;
  for (const [name, ratio] of Object.entries(ratios)) {
    if (!(ratio >= 0 && ratio <= 1)) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: `allocation ratio of "${name}" must be within 0..1, got ${ratio}`,
        path: `allocationRatios.${name}`,
      });
    }
    sum += ratio;
  }
  if (sum > 1 + 1e-9) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `allocation ratios sum to ${sum.toFixed(3)}; they must sum to at most 1`,
      path: 'allocationRatios',
    });
  }
}

/**
 * A budget manager whose input budget is at most `maxInputTokens` (the output reserve is
 * unchanged): how a compile is clipped below the window — e.g. to a soft compression limit —
 * inside the pipeline, so every block the lower limit leaves out is in the report.
 * Allocations shrink in proportion.
 */
export function capInputBudget(manager: BudgetManager, maxInputTokens: number): BudgetManager {
  if (!Number.isInteger(maxInputTokens) || maxInputTokens < 0) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `maxInputTokens must be an integer ≥ 0, got ${maxInputTokens}`,
      path: 'maxInputTokens',
    });
  }
  return {
    window: manager.window,
    outputReserveRatio: manager.outputReserveRatio,
    allocate(input) {
      const plan = manager.allocate(input);
      if (plan.inputBudget <= maxInputTokens) return plan;
      const available = Math.max(0, maxInputTokens - plan.fixedTokens);
      const scale = plan.available === 0 ? 0 : available / plan.available;
      const allocations: Record<string, number> = {};
      for (const [name, tokens] of Object.entries(plan.allocations)) allocations[name] = tokens * scale;
      return {
        ...plan,
        inputBudget: maxInputTokens,
        available,
        allocations,
        unallocated: plan.unallocated * scale,
      };
    },
  };
}

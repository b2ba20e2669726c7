import { type BudgetManager, capInputBudget, createBudgetManager } from './budget.ts';
import type { CompileOptions } from './compile-types.ts';
import { CtxloomError } from './errors.ts';

/** The compile's budget manager: the given one or one from `window`, capped by `maxInputTokens`. */
export function resolveBudget(options: CompileOptions): BudgetManager {
  const manager = baseBudget(options);
  return options.maxInputTokens === undefined ? manager : capInputBudget(manager, options.maxInputTokens);
}

function baseBudget(options: CompileOptions): BudgetManager {
  if (options.budgetManager !== undefined) return options.budgetManager;
  if (options.window === undefined) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'compileContext needs `window` (the model context window in tokens) or a `budgetManager`',
      path: 'window',
    });
  }
  return createBudgetManager({
    modelContextWindow: options.window,
    ...(options.outputReserveRatio === undefined ? {} : { outputReserveRatio: options.outputReserveRatio }),
    ...(options.allocationRatios === undefined ? {} : { allocationRatios: options.allocationRatios }),
  });
}

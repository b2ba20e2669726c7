import { describe, expect, it } from 'vitest';
import { createAdaptiveBudgetManager, phaseFromProgress } from './adaptive-budget.ts';
import { createBudgetManager } from './budget.ts';
import { CtxloomError } from './errors.ts';

const sources = ['L1_recent', 'L2_important', 'INHERITED', 'retrieval', 'history'];
const ratios = { L1_recent: 0.25, L2_important: 0.2, INHERITED: 0.1, retrieval: 0.15 };

describe('createBudgetManager', () => {
  it('reserves 25% for output and splits the rest by the seed ratios', () => {
    const plan = createBudgetManager({ modelContextWindow: 128_000, allocationRatios: ratios }).allocate({
      sources,
      fixedTokens: 6_000,
    });
    expect(plan.outputReserve).toBe(32_000);
    expect(plan.inputBudget).toBe(96_000);
    expect(plan.available).toBe(90_000);
    expect(plan.allocations.L1_recent).toBeCloseTo(22_500);
    expect(plan.allocations.retrieval).toBeCloseTo(13_500);
    // The unlisted history takes what the ratios leave (0.30).
    expect(plan.allocations.history).toBeCloseTo(27_000);
  });

  it('rejects ratios that sum above 1 and windows that are not positive integers', () => {
    expect(() =>
      createBudgetManager({ modelContextWindow: 1000, allocationRatios: { a: 0.7, b: 0.4 } }),
    ).toThrow(/sum to 1.100/);
    expect(() => createBudgetManager({ modelContextWindow: 0 })).toThrow(CtxloomError);
    expect(() => createBudgetManager({ modelContextWindow: 100, outputReserveRatio: 1 })).toThrow(
      /outputReserveRatio/,
    );
  });
});

describe('createAdaptiveBudgetManager', () => {
  const manager = createAdaptiveBudgetManager({ modelContextWindow: 100_000, allocationRatios: ratios });
  const allocate = (phase: 'early' | 'mid' | 'late') =>
    manager.allocate({ sources, fixedTokens: 0, phase }).allocations;

  it('gives retrieval more early, recent turns more mid, important memory more late', () => {
    const base = createBudgetManager({ modelContextWindow: 100_000, allocationRatios: ratios }).allocate({
      sources,
      fixedTokens: 0,
    }).allocations;
    expect(allocate('early').retrieval).toBeGreaterThan(base.retrieval ?? 0);
    expect(allocate('mid').L1_recent).toBeGreaterThan(base.L1_recent ?? 0);
    expect(allocate('late').L2_important).toBeGreaterThan(base.L2_important ?? 0);
  });

  it('moves tokens between sources without creating any', () => {
    for (const phase of ['early', 'mid', 'late'] as const) {
      const total = Object.values(allocate(phase)).reduce((sum, value) => sum + value, 0);
      expect(total).toBeLessThanOrEqual(75_000 + 1e-6);
    }
  });

  it('derives the phase from progress', () => {
    expect(phaseFromProgress(0.1)).toBe('early');
    expect(phaseFromProgress(0.5)).toBe('mid');
    expect(phaseFromProgress(0.9)).toBe('late');
    expect(manager.allocate({ sources, fixedTokens: 0, progress: 0.9 }).phase).toBe('late');
    expect(() => phaseFromProgress(2)).toThrow(/progress/);
  });
});

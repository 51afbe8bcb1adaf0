/** The V8 flags a command sets at start: only those the V8 it runs on knows. */
import { describe, expect, it } from 'vitest';
import { LONG_RUN_SITES, v8Budgets, v8BudgetsForRun } from '../../../src/lib/v8-budgets.js';

describe('v8Budgets', () => {
  it("sets the interrupt budget and no inlining on Node 20's V8 11", () => {
    expect(v8Budgets('11.3.244.8-node.38')).toEqual([
      '--interrupt-budget=200000',
      '--no-turbo-inlining',
      '--wasm-tiering-budget=1000000000',
    ]);
  });

  it("leaves them out on Node 22's V8 12 and later, which tier up otherwise", () => {
    expect(v8Budgets('12.4.254.21-node.57')).toEqual(['--wasm-tiering-budget=1000000000']);
    expect(v8Budgets('13.6.233.10-node.24')).toEqual(['--wasm-tiering-budget=1000000000']);
  });

  it('sets nothing V8 might not know when its version cannot be read', () => {
    expect(v8Budgets('unknown')).toEqual(['--wasm-tiering-budget=1000000000']);
  });
});

describe('v8BudgetsForRun', () => {
  it("gives a long check V8's own budgets back on V8 11, where a command set others", () => {
    expect(v8BudgetsForRun('11.3.244.8-node.38', LONG_RUN_SITES)).toEqual([
      '--interrupt-budget=67584',
      '--turbo-inlining',
    ]);
    expect(v8BudgetsForRun('11.3.244.8-node.38', 100_000)).toHaveLength(2);
  });

  it('keeps the budgets for a check of fewer sites, where optimising late pays', () => {
    expect(v8BudgetsForRun('11.3.244.8-node.38', LONG_RUN_SITES - 1)).toEqual([]);
    expect(v8BudgetsForRun('11.3.244.8-node.38', 3_000)).toEqual([]);
  });

  it('sets nothing on V8 12 and later, which never had the budgets set', () => {
    expect(v8BudgetsForRun('12.4.254.21-node.57', 100_000)).toEqual([]);
    expect(v8BudgetsForRun('unknown', 100_000)).toEqual([]);
  });
});

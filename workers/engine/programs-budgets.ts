/**
 * The device pools' budgets, kept as a setting (`poolBudgets`).
 *
 * Idea: the budget is a person's setting like the run backend, so it lives
 * with the other settings and survives a reload; the engine reads it when
 * it starts (`EnginePools.restore`) and writes it when the pool view sets
 * it. Both backends' budgets share one setting, rewritten in a transaction,
 * so two settings in quick succession cannot lose one another.
 */
import type { FlowbenchDb } from '../../src/db/schema';
import { changeSetting, readSetting, type PoolBudgets } from '../../src/db/settings';
import type { BudgetStore } from './programs';

/** A `BudgetStore` over the settings of `db`. */
export function settingsBudgetStore(db: FlowbenchDb): BudgetStore {
  return {
    async load() {
      return (await readSetting(db, 'poolBudgets')) ?? {};
    },
    save(backend, bytes) {
      return changeSetting(db, 'poolBudgets', (before = {}) => {
        const kept: PoolBudgets = {};
        for (const other of ['webgpu', 'wasm'] as const)
          if (other !== backend && before[other] !== undefined) kept[other] = before[other];
        if (bytes !== null) kept[backend] = bytes;
        return kept;
      });
    },
  };
}

/**
 * The device pools' budgets, kept in the settings table.
 *
 * Idea: the budget is a person's setting like the run backend, so it lives
 * in the same key-value table and survives a reload; the engine reads it when
 * it starts (`EnginePools.restore`) and writes it when the pool view sets
 * it. Both backends' budgets share one row, rewritten in a transaction, so
 * two settings in quick succession cannot lose one another.
 */
import type { Backend } from '../../src/core/runtime/tensor-runtime';
import type { FlowbenchDb } from '../../src/db/schema';
import type { BudgetStore } from './programs';

/** The settings key of the pool budgets: `{ webgpu?: bytes, wasm?: bytes }`. */
export const POOL_BUDGETS = 'pool-budgets';

type Kept = Partial<Record<Backend, number>>;

function keptOf(value: unknown): Kept {
  if (typeof value !== 'object' || value === null) return {};
  const kept: Kept = {};
  for (const [backend, bytes] of Object.entries(value))
    if ((backend === 'webgpu' || backend === 'wasm') && typeof bytes === 'number')
      kept[backend] = bytes;
  return kept;
}

/** A `BudgetStore` over the settings table of `db`. */
export function settingsBudgetStore(db: FlowbenchDb): BudgetStore {
  return {
    async load() {
      return keptOf((await db.settings.get(POOL_BUDGETS))?.value);
    },
    save(backend, bytes) {
      return db.transaction('rw', db.settings, async () => {
        const before = keptOf((await db.settings.get(POOL_BUDGETS))?.value);
        const kept: Kept = {};
        for (const other of ['webgpu', 'wasm'] as const)
          if (other !== backend && before[other] !== undefined) kept[other] = before[other];
        if (bytes !== null) kept[backend] = bytes;
        await db.settings.put({ key: POOL_BUDGETS, value: kept });
      });
    },
  };
}

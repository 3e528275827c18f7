import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { WASM_HEAP_BUDGET } from '../../src/core/programs';
import { FlowbenchDb } from '../../src/db/schema';
import { readSetting, writeSetting, type PoolBudgets } from '../../src/db/settings';
import { EnginePools } from './programs';
import { settingsBudgetStore } from './programs-budgets';

const opened: FlowbenchDb[] = [];
function freshDb(): FlowbenchDb {
  const db = new FlowbenchDb(`flowbench-test-budgets-${crypto.randomUUID()}`);
  opened.push(db);
  return db;
}
afterEach(async () => {
  for (const db of opened.splice(0)) await db.delete();
});

/** An engine as a reload starts it: a fresh connection, pools restored from the settings. */
async function reloadedPools(name: string): Promise<EnginePools> {
  const db = new FlowbenchDb(name);
  opened.push(db);
  const pools = new EnginePools(() => null, settingsBudgetStore(db));
  await pools.restore();
  return pools;
}

describe('pool budgets across reloads', () => {
  it('keeps a budget a person set, per backend, and forgets it when set back to the default', async () => {
    const db = freshDb();
    const pools = new EnginePools(() => null, settingsBudgetStore(db));
    await pools.restore();
    await pools.chooseBudget('wasm', 64e6);
    await pools.chooseBudget('webgpu', 128e6);

    const again = await reloadedPools(db.name);
    expect(again.budget('wasm')).toEqual({ backend: 'wasm', bytes: 64e6, source: 'setting' });
    expect(again.pool('wasm').budget).toBe(64e6);
    expect(again.budget('webgpu').bytes).toBe(128e6);

    await again.chooseBudget('wasm', null);
    const third = await reloadedPools(db.name);
    expect(third.budget('wasm')).toEqual({
      backend: 'wasm',
      bytes: WASM_HEAP_BUDGET,
      source: 'default',
    });
    expect(third.budget('webgpu').bytes).toBe(128e6);
  });

  it('refuses a bad budget without storing it, and skips a stored value that is not a budget', async () => {
    const db = freshDb();
    const pools = new EnginePools(() => null, settingsBudgetStore(db));
    await expect(pools.chooseBudget('wasm', -5)).rejects.toThrow(/positive number of bytes/);
    expect(await readSetting(db, 'poolBudgets')).toBeUndefined();

    // As another release (or a hand in the dev tools) might have stored it.
    const stored = { wasm: 'lots', webgpu: 32e6 } as unknown as PoolBudgets;
    await writeSetting(db, 'poolBudgets', stored);
    const again = await reloadedPools(db.name);
    expect(again.budget('wasm').source).toBe('default');
    expect(again.budget('webgpu')).toEqual({ backend: 'webgpu', bytes: 32e6, source: 'setting' });
  });
});

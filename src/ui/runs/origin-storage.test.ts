import { describe, expect, it } from 'vitest';
import { askPersistentStorage, readStorageState, type OriginStorage } from './origin-storage';

/** A browser's storage manager that grants persistence when asked, if `grants`. */
function manager(grants: boolean, usage = 1200): OriginStorage & { asked: number } {
  let persistent = false;
  return {
    asked: 0,
    persisted: () => Promise.resolve(persistent),
    persist() {
      this.asked++;
      persistent = grants;
      return Promise.resolve(grants);
    },
    estimate: () => Promise.resolve({ usage, quota: 5e9 }),
  };
}

describe('origin storage', () => {
  it('asks for persistence and reads what the browser answered', async () => {
    const granting = manager(true);
    expect(await readStorageState(granting)).toEqual({
      persistent: false,
      usage: 1200,
      quota: 5e9,
    });
    expect(await askPersistentStorage(granting)).toBe(true);
    expect((await readStorageState(granting)).persistent).toBe(true);
    // Already persistent: not asked again.
    expect(await askPersistentStorage(granting)).toBe(true);
    expect(granting.asked).toBe(1);

    const declining = manager(false);
    expect(await askPersistentStorage(declining)).toBe(false);
    expect((await readStorageState(declining)).persistent).toBe(false);
  });

  it('says nothing it does not know where the browser has no storage manager', async () => {
    expect(await askPersistentStorage(undefined)).toBeNull();
    expect(await readStorageState(undefined)).toEqual({
      persistent: null,
      usage: null,
      quota: null,
    });
  });
});

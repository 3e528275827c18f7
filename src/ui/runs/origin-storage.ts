/**
 * The browser's storage for Flowbench's origin: whether it is persistent or
 * best-effort, and how much of it is used.
 *
 * Idea: runs are the product, and a browser may clear best-effort storage
 * when the disk runs low. So the first run asks for persistent storage, and
 * the runs panel says what the browser answered and how full it is. The
 * browser decides: Chromium answers from its own signals (how much the site
 * is used, an installed app, granted notifications) without asking the
 * person; Firefox asks them. The manager is passed in, so this runs under
 * Node with a stand-in. (A page's API: a worker's storage manager cannot
 * ask for persistence, so this is not in the db layer the worker shares.)
 */

/** The part of `navigator.storage` this module uses. */
export interface OriginStorage {
  persisted(): Promise<boolean>;
  persist(): Promise<boolean>;
  estimate(): Promise<{ usage?: number; quota?: number }>;
}

/** What the runs panel shows of the origin's storage. */
export interface StorageState {
  /** Kept until the person clears it; `null` where the browser does not say. */
  persistent: boolean | null;
  /** Bytes used by this origin, and the most it may use; `null` where the browser does not say. */
  usage: number | null;
  quota: number | null;
}

/** This browser's storage manager, where it has one (not under Node, nor on plain http). */
export function originStorage(): OriginStorage | undefined {
  return typeof navigator === 'undefined' ? undefined : navigator.storage;
}

/** Whether the storage is persistent and how full it is, as the browser says now. */
export async function readStorageState(storage = originStorage()): Promise<StorageState> {
  if (!storage) return { persistent: null, usage: null, quota: null };
  const [persistent, estimate] = await Promise.all([
    storage.persisted().catch(() => null),
    storage.estimate().catch(() => ({ usage: undefined, quota: undefined })),
  ]);
  return { persistent, usage: estimate.usage ?? null, quota: estimate.quota ?? null };
}

/**
 * Ask the browser to keep this origin's storage until the person clears it.
 * `true` when it is persistent (already, or granted now), `false` when the
 * browser declined, `null` where it cannot be asked.
 */
export async function askPersistentStorage(storage = originStorage()): Promise<boolean | null> {
  if (!storage) return null;
  if (await storage.persisted()) return true;
  return storage.persist();
}

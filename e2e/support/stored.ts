/**
 * Run records as IndexedDB holds them, read in a page past the app: for tests
 * that must know what is stored (a lease the UI does not show) and for
 * failure messages that tell a page that stopped updating from an engine that
 * stopped writing.
 */
import type { Page } from '@playwright/test';
import type { EngineTimings } from '../../src/db/settings';

export interface StoredRun {
  id: string;
  status: string;
  leaseUntil: number | null;
}

export interface StoredRuns {
  /** The page's clock when it read them (leases are epoch ms on that clock). */
  now: number;
  runs: StoredRun[];
  nodes: { runId: string; node: string; status: string }[];
}

/** Every run and node outcome, read in one read-only transaction in `page`. */
export function readStoredRuns(page: Page): Promise<StoredRuns> {
  return page.evaluate(
    () =>
      new Promise<StoredRuns>((resolve, reject) => {
        const open = indexedDB.open('flowbench');
        open.onerror = () => reject(open.error ?? new Error('cannot open flowbench'));
        open.onsuccess = () => {
          const db = open.result;
          const tx = db.transaction(['runs', 'runNodes'], 'readonly');
          const runs = tx.objectStore('runs').getAll();
          const nodes = tx.objectStore('runNodes').getAll();
          tx.onabort = () => reject(tx.error ?? new Error('cannot read the run stores'));
          tx.oncomplete = () => {
            db.close();
            resolve({
              now: Date.now(),
              runs: runs.result as StoredRun[],
              nodes: nodes.result as StoredRuns['nodes'],
            });
          };
        };
      }),
  );
}

/** A pool booking as IndexedDB holds it: bytes of the one budget an engine (tab) holds. */
export interface StoredBooking {
  engine: string;
  backend: string;
  bytes: number;
  holder: string;
  label: string;
  leaseUntil: number;
}

/** Every pool booking, read in one read-only transaction in `page`. */
export function readPoolBookings(page: Page): Promise<StoredBooking[]> {
  return page.evaluate(
    () =>
      new Promise<StoredBooking[]>((resolve, reject) => {
        const open = indexedDB.open('flowbench');
        open.onerror = () => reject(open.error ?? new Error('cannot open flowbench'));
        open.onsuccess = () => {
          const db = open.result;
          const tx = db.transaction('poolBookings', 'readonly');
          const rows = tx.objectStore('poolBookings').getAll();
          tx.onabort = () => reject(tx.error ?? new Error('cannot read the pool bookings'));
          tx.oncomplete = () => {
            db.close();
            resolve(rows.result as StoredBooking[]);
          };
        };
      }),
  );
}

/**
 * Store the setting `key` (its key in the settings table, src/db/settings.ts)
 * as a person's setting kept from an earlier visit: an engine reads the
 * settings it needs when it starts, so the page is reloaded after.
 */
export function storeSetting(page: Page, key: string, value: unknown): Promise<void> {
  return page.evaluate(
    ({ key, value }) =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('flowbench');
        open.onerror = () => reject(open.error ?? new Error('cannot open flowbench'));
        open.onsuccess = () => {
          const db = open.result;
          const tx = db.transaction('settings', 'readwrite');
          tx.objectStore('settings').put({ key, value });
          tx.onabort = () => reject(tx.error ?? new Error(`cannot write the setting ${key}`));
          tx.oncomplete = () => {
            db.close();
            resolve();
          };
        };
      }),
    { key, value },
  );
}

/**
 * Waits short enough that a test of what follows a fault (a run abandoned, a
 * lease run out, writes that wait) sees it in seconds, and long enough that
 * a live engine on a loaded machine renews its leases well in time.
 */
export const SHORT_TIMINGS: Required<EngineTimings> = {
  leaseMs: 4_000,
  sweepMs: 1_000,
  storageStallMs: 5_000,
};

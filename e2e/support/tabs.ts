/**
 * More tabs of the same browser: the same profile, so the same IndexedDB and
 * the same Web Locks, each tab with its own engine worker. What the engine
 * looks like from outside (its worker, its lease) is read here too, for the
 * durability tests that must know a fault really happened.
 */
import type { BrowserContext, Page, Worker } from '@playwright/test';
import { Workbench } from '../pages/workbench';
import { readStoredRuns } from './stored';

/** A tab and the uncaught errors its page has thrown so far. */
export interface Tab {
  app: Workbench;
  errors: string[];
}

/**
 * An uncaught error as a test reports it: its stack, or its name and message
 * where it has none (an error the engine worker did not catch reaches the
 * page without one).
 */
export function pageErrorText(error: Error): string {
  return error.stack || `${error.name}: ${error.message}`;
}

/** Open the app in another tab of `context`, collecting its page errors. */
export async function openTab(context: BrowserContext): Promise<Tab> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(pageErrorText(error)));
  const app = new Workbench(page);
  await app.open();
  return { app, errors };
}

/** The page's engine worker (onnxruntime's own threads are workers too). */
export function engineWorker(page: Page): Worker {
  const worker = page.workers().find((w) => w.url().includes('engine.worker'));
  if (!worker) throw new Error('the page has no engine worker');
  return worker;
}

/**
 * Keep the engine worker's thread blocked for `ms`: no timer fires in it, so it
 * neither refreshes its leases nor flushes metrics, as when a browser starves
 * a background tab; but it stays alive and keeps the Web Locks it holds.
 *
 * A browser starves a tab between tasks, never inside an IndexedDB
 * transaction, and so does this. DevTools may run the call in the middle of
 * the worker's own JavaScript, and the engine may begin a write at any turn,
 * even between a transaction's commit and its `complete` event. Blocking
 * the thread while one of its transactions waits to deliver a callback would
 * keep that transaction open and hold every other tab's reads of the run
 * stores — their sweeps included — until the block ends (a trace showed a
 * sweep's read held for all 25 s). So the call watches every transaction the engine uses
 * from then on (Dexie binds `IDBDatabase.transaction` when it opens, but asks
 * each transaction for its stores as it goes), waits for a read-write
 * transaction over the run stores to commit (every write begun before is
 * done), and blocks at the first moment after that when none it watches is
 * open.
 */
export function starveEngine(page: Page, ms: number): Promise<void> {
  return engineWorker(page).evaluate(
    (busyMs) =>
      new Promise<void>((resolve, reject) => {
        // eslint-disable-next-line @typescript-eslint/unbound-method -- always called on a transaction
        const objectStore = IDBTransaction.prototype.objectStore;
        const watched = new Set<IDBTransaction>();
        let settled = false;
        const unwatch = () => {
          IDBTransaction.prototype.objectStore = objectStore;
        };
        const blockIfIdle = () => {
          if (!settled || watched.size > 0) return;
          unwatch();
          // Blocked, not spinning: no task gets in, and the core is left to everything else
          // (the app is cross-origin isolated, so shared memory and Atomics.wait are there).
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, busyMs);
          resolve();
        };
        IDBTransaction.prototype.objectStore = function (this: IDBTransaction, name: string) {
          const store = objectStore.call(this, name); // throws for a transaction already over
          if (!watched.has(this)) {
            watched.add(this);
            const ended = () => {
              watched.delete(this);
              blockIfIdle();
            };
            this.addEventListener('complete', ended);
            this.addEventListener('abort', ended);
          }
          return store;
        };
        const fail = (error: Error) => {
          unwatch();
          reject(error);
        };
        const open = indexedDB.open('flowbench');
        open.onerror = () => fail(open.error ?? new Error('cannot open flowbench'));
        open.onsuccess = () => {
          const db = open.result;
          const stores = ['runs', 'runNodes', 'metrics', 'intervals', 'artifacts'];
          const settle = db.transaction(stores, 'readwrite');
          objectStore.call(settle, 'runs').count();
          settle.onabort = () => fail(settle.error ?? new Error('cannot settle the stores'));
          settle.oncomplete = () => {
            db.close();
            settled = true;
            blockIfIdle();
          };
        };
      }),
    ms,
  );
}

/**
 * Whether run `id`'s lease has run out, read from IndexedDB in `page`. The UI
 * does not show leases; a test reads it to know the sweep had a stale lease
 * in front of it.
 */
export async function leaseExpired(page: Page, id: string): Promise<boolean> {
  const { now, runs } = await readStoredRuns(page);
  const lease = runs.find((run) => run.id === id)?.leaseUntil;
  return typeof lease === 'number' && lease < now;
}

/**
 * Hold a read-write transaction on `store` open in `page`, as a tab that
 * keeps writing would, until the returned function lets it end. Every other
 * write to the store, from any tab, waits behind it.
 */
export async function holdStore(page: Page, store: string): Promise<() => Promise<void>> {
  await page.evaluate(
    (name) =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('flowbench');
        open.onerror = () => reject(open.error ?? new Error('cannot open flowbench'));
        open.onsuccess = () => {
          const tx = open.result.transaction(name, 'readwrite');
          const held = { release: false };
          (globalThis as { __heldStore?: typeof held }).__heldStore = held;
          const spin = () => {
            if (!held.release) tx.objectStore(name).count().onsuccess = spin;
          };
          spin();
          tx.oncomplete = () => open.result.close();
          resolve();
        };
      }),
    store,
  );
  return () =>
    page.evaluate(() => {
      (globalThis as { __heldStore?: { release: boolean } }).__heldStore!.release = true;
    });
}

/**
 * The shared budget as a browser runs it: this engine's Web Lock held for
 * the worker's life (other tabs read it as alive), the locks held as the
 * engines alive, and a broadcast channel between the engines of every tab
 * that tells a release (a waiting engine looks again at once) and a budget
 * a person set (every engine applies it, so all admit against one budget).
 */
import type { BudgetStore } from './programs';
import { enginesOfLocks, engineLockName, SharedBudget } from './pool-ledger';
import type { FlowbenchDb } from '../../src/db/schema';

const CHANNEL = 'flowbench-pool';

/** What the engines tell one another. */
type PoolMessage = 'released' | 'budgets';

export interface BrowserBudget {
  readonly budget: SharedBudget;
  /** `store`, telling every other engine when a budget is set. */
  announcing(store: BudgetStore): BudgetStore;
}

/**
 * Starts this engine's share of the budget: its lock, its renewals, and
 * what it hears; `budgetsChanged` is called when another tab sets a budget.
 */
export function startBrowserBudget(db: FlowbenchDb, budgetsChanged: () => void): BrowserBudget {
  const channel = new BroadcastChannel(CHANNEL);
  const tell = (message: PoolMessage) => channel.postMessage(message);
  const budget = new SharedBudget({
    db,
    now: () => Date.now(),
    liveEngines: async () => {
      const { held = [] } = await navigator.locks.query();
      return enginesOfLocks(held.map((lock) => lock.name));
    },
    setTimer: (fire, ms) => {
      const timer = setTimeout(fire, ms);
      return () => clearTimeout(timer);
    },
    announce: () => tell('released'),
  });
  // Never granted back: the browser frees it when the worker or its tab goes.
  void navigator.locks.request(engineLockName(budget.engine), () => new Promise<void>(() => {}));
  channel.onmessage = (event: MessageEvent<PoolMessage>) => {
    if (event.data === 'budgets') budgetsChanged();
    else void budget.renew().catch(() => undefined);
  };
  budget.start();
  return {
    budget,
    announcing: (store) => ({
      load: () => store.load(),
      save: async (backend, bytes) => {
        await store.save(backend, bytes);
        tell('budgets');
      },
    }),
  };
}

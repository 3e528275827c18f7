/**
 * The crash fuzzer: seeded scenarios of runs and faults across two or three
 * tabs of one browser (support/fuzz/scenario.ts), each followed by a check of
 * what IndexedDB holds (support/fuzz/invariants.ts) and of every `ok` run's
 * export, imported into another browser and exported back unchanged.
 *
 * `npm test` runs the fixed seeds below; `npm run fuzz -- --scenarios N --seed S`
 * runs seeds S … S+N-1 (FUZZ_SEED, FUZZ_SCENARIOS). A failure prints its seed
 * and its actions: `npm run fuzz -- --seed S` replays it.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { ENGINE_TIMING_DEFAULTS } from '../src/db/settings';
import { expect, test } from './fixtures';
import type { RunFile } from './support/formats';
import {
  firstDifference,
  poolHeld,
  poolOverruns,
  readPool,
  readStore,
  unfinishedRuns,
  violations,
  type PoolSample,
  type StoredState,
} from './support/fuzz/invariants';
import {
  describeScenario,
  FIXED_SEEDS,
  scenarioFor,
  type Action,
  type Scenario,
} from './support/fuzz/scenario';
import { StorageQuota } from './support/quota';
import { storeSetting } from './support/stored';
import { engineWorker, openTab, type Tab } from './support/tabs';
import { Workbench } from './pages/workbench';

/**
 * Several runs at once in several tabs: in `npm test` one scenario at a time,
 * beside ordinary tests. At length (`npm run fuzz`) two scenarios run side by
 * side, each on its own server and profile: twice as many in the time. A
 * loaded machine is one more fault: the invariants hold whatever the timing.
 */
const heavy = process.env.FUZZ_SCENARIOS === undefined ? { tag: '@heavy' } : {};

/** How long a lease vouches for a run, and how often every engine sweeps. */
const { leaseMs: LEASE_MS, sweepMs: SWEEP_MS } = ENGINE_TIMING_DEFAULTS;
/** How long the survivors get to finish every run once the faults are over (a wait, not a check). */
const SETTLE_MS = 120_000;
/** How long a cancelled run may still end `ok` (a cancel as its last step runs may lose). */
const CANCEL_GRACE_MS = 5_000;
/**
 * The device pools' budget in every scenario, in bytes: room for one
 * evaluation of the default flow (84 KB) or two trainings (40 KB each), not
 * for an evaluation beside a training, so runs in different tabs contend for
 * it and the one budget has something to refuse.
 */
const POOL_BUDGET = 100_000;
/** How long a Cancel click may wait for its button (a run that ended meanwhile disables it). */
const CANCEL_CLICK_MS = 5_000;
/** How often the pool bookings are looked at while the scenario runs and settles. */
const POOL_LOOK_MS = 100;

/** The scenario with only the steps `keep` lists (`0,2,5`: indices), as the minimiser replays it. */
function only(scenario: Scenario, keep: string | undefined): Scenario {
  if (keep === undefined) return scenario;
  const kept = new Set(keep.split(',').filter(Boolean).map(Number));
  return { ...scenario, steps: scenario.steps.filter((step) => kept.has(step.index)) };
}

function seeds(): number[] {
  const from = process.env.FUZZ_SEED;
  const count = Number(process.env.FUZZ_SCENARIOS ?? (from === undefined ? 0 : 1));
  if (from === undefined && count === 0) return [...FIXED_SEEDS];
  const first = from === undefined ? Date.now() % 1_000_000 : Number(from);
  return Array.from({ length: count }, (_, i) => (first + i) >>> 0);
}

/** The tabs of a scenario, by slot; an engineless tab's worker was terminated. */
interface Tabs {
  open: Map<number, Tab>;
  engineless: Set<number>;
  /** Uncaught page errors of every tab, closed ones included. */
  errors: string[];
  /** Runs this scenario asked to cancel, and when (epoch ms; one machine, one clock). */
  cancels: { id: string; at: number }[];
  /** Quotas forced, each given back when its hold ends. */
  lifts: Promise<void>[];
}

/** Give the origin its quota back, through the first open tab that answers (one always is). */
async function liftQuota(tabs: Tabs): Promise<void> {
  for (const tab of tabs.open.values())
    try {
      await (await StorageQuota.of(tab.app.page)).lift();
      return;
    } catch {
      // That tab closed or reloaded meanwhile: the next one.
    }
}

async function startRuns(app: Workbench, steps: number, lrs: number[]): Promise<void> {
  await app.params.set('steps', steps);
  await app.params.set('lr', lrs.join(', '));
  if (lrs.length > 1) {
    await expect(app.params.sweepButton).toHaveText(`Run sweep (${lrs.length} runs)`);
    await app.params.runSweep();
  } else await app.toolbar.run();
}

/**
 * Whether `action` can be carried out now. A whole scenario always can; one
 * cut down while minimising (FUZZ_STEPS) may have lost the step that opened
 * a tab or gave it an engine back, and then the action is left out too.
 */
function applicable(tabs: Tabs, action: Action): boolean {
  if (action.kind === 'open') return !tabs.open.has(action.tab);
  if (!tabs.open.has(action.tab)) return false;
  if (action.kind === 'close') return tabs.open.size > 1;
  if (action.kind === 'run' || action.kind === 'sweep' || action.kind === 'terminate')
    return !tabs.engineless.has(action.tab);
  return true;
}

/** Carry out one action (an applicable one). */
async function perform(context: BrowserContext, tabs: Tabs, action: Action): Promise<void> {
  const tab = tabs.open.get(action.tab);
  switch (action.kind) {
    case 'run':
      return startRuns(tab!.app, action.steps, [action.lr]);
    case 'sweep':
      return startRuns(tab!.app, action.steps, action.lrs);
    case 'close':
      tabs.errors.push(...tab!.errors);
      tabs.open.delete(action.tab);
      tabs.engineless.delete(action.tab);
      return tab!.app.page.close({ runBeforeUnload: false });
    case 'open':
      tabs.open.set(action.tab, await openTab(context));
      return;
    case 'terminate':
      tabs.engineless.add(action.tab);
      // The worker closes itself: as a crash, its Web Locks go with it and nothing is written.
      await engineWorker(tab!.app.page)
        .evaluate(() => self.close())
        .catch(() => undefined);
      return;
    case 'reload':
      tabs.engineless.delete(action.tab);
      return tab!.app.reload();
    case 'cancel': {
      const { runs, toolbar } = tab!.app;
      const rows = await runs.rows.count();
      if (rows === 0) return;
      const row = runs.rows.nth(action.pick % rows);
      const id = await runs.idOf(row);
      await runs.select(runs.row(id));
      if (!(await toolbar.cancelButton.isEnabled())) return;
      // The run may end between the look and the click (the button is then disabled for good):
      // a click that does not happen soon is not a cancel.
      const at = Date.now();
      if (
        await toolbar.cancelButton.click({ timeout: CANCEL_CLICK_MS }).then(
          () => true,
          () => false,
        )
      )
        tabs.cancels.push({ id, at });
      return;
    }
    case 'quota': {
      const quota = await StorageQuota.of(tab!.app.page);
      await quota.force(await quota.usage());
      // Held while the scenario goes on, then lifted through whichever tab is open by then.
      tabs.lifts.push(
        new Promise((resolve) => setTimeout(resolve, action.holdMs)).then(() => liftQuota(tabs)),
      );
      return;
    }
  }
}

/**
 * Runs the scenario cancelled (from any tab, the Cancel button enabled) that
 * went on to end `ok` well after: the cancel never reached their driver.
 */
function ignoredCancels(state: StoredState, cancels: Tabs['cancels']): string[] {
  const found: string[] = [];
  for (const { id, at } of cancels) {
    const run = state.runs.find((r) => r.id === id);
    const ended = run?.finishedAt ? Date.parse(run.finishedAt) : NaN;
    if (run?.status === 'ok' && ended - at > CANCEL_GRACE_MS)
      found.push(`run ${id} was cancelled from a tab, yet ended ok ${ended - at} ms later`);
  }
  return found;
}

/**
 * Look at every tab's pool bookings until stopped, from the first open tab
 * (a tab closing mid-look costs one look).
 */
function watchPool(pages: () => Page[]): () => Promise<PoolSample[]> {
  const samples: PoolSample[] = [];
  let watching = true;
  const looking = (async () => {
    while (watching) {
      const page = pages().find((p) => !p.isClosed());
      if (page)
        samples.push(
          ...(await readPool(page).then(
            (s) => [s],
            () => [],
          )),
        );
      await new Promise((resolve) => setTimeout(resolve, POOL_LOOK_MS));
    }
  })();
  return async () => {
    watching = false;
    await looking;
    return samples;
  };
}

/** Wait until no run is queued or running, or SETTLE_MS have passed; the last read of the stores. */
async function settle(page: Page): Promise<StoredState> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const state = await readStore(page);
    if (unfinishedRuns(state).length === 0 || Date.now() > deadline) return state;
    await page.waitForTimeout(1_000);
  }
}

/**
 * Every `ok` run exported from `app`, imported into a fresh browser context
 * and exported again: the same file, field for field.
 */
async function roundTrips(
  app: Workbench,
  context: BrowserContext,
  ids: string[],
): Promise<string[]> {
  const found: string[] = [];
  if (ids.length === 0) return found;
  const other = new Workbench(await context.newPage());
  await other.open();
  for (const id of ids) {
    await app.runs.select(app.runs.row(id));
    const { json } = await app.runs.exportRun();
    await other.toolbar.importFile({ name: `${id}.run.json`, text: JSON.stringify(json) });
    const row = other.runs.row(id);
    await other.runs.expectStatus(row, 'ok');
    await other.runs.select(row);
    const again: RunFile = (await other.runs.exportRun()).json;
    const difference = firstDifference(json, again);
    if (difference !== null)
      found.push(`run ${id}: its export, imported and exported again, differs at ${difference}`);
  }
  return found;
}

async function runScenario(
  scenario: Scenario,
  first: Tab,
  newContext: () => Promise<BrowserContext>,
): Promise<string[]> {
  const context = first.app.page.context();
  const tabs: Tabs = {
    open: new Map([[0, first]]),
    engineless: new Set(),
    errors: [],
    cancels: [],
    lifts: [],
  };
  let checker: Tab | null = null;
  const stopWatching = watchPool(() =>
    [checker, ...tabs.open.values()].flatMap((tab) => (tab ? [tab.app.page] : [])),
  );
  for (let slot = 1; slot < scenario.tabs; slot++) tabs.open.set(slot, await openTab(context));
  for (const { afterMs, action } of scenario.steps) {
    await new Promise((resolve) => setTimeout(resolve, afterMs));
    if (applicable(tabs, action)) await perform(context, tabs, action);
  }

  // A later visit: a fresh tab (and engine) beside the survivors; storage comes back as it goes.
  checker = await openTab(context);
  await Promise.all(tabs.lifts);
  const state = await settle(checker.app.page);
  const pool = await stopWatching();
  const found = [
    ...violations(state),
    ...ignoredCancels(state, tabs.cancels),
    ...poolOverruns(pool, { wasm: POOL_BUDGET, webgpu: POOL_BUDGET }),
  ];
  const outcome = new Map<string, number>();
  for (const run of state.runs) outcome.set(run.status, (outcome.get(run.status) ?? 0) + 1);
  const most = Math.max(
    0,
    ...pool.flatMap((look) => [...poolHeld(look).values()].map((h) => h.bytes)),
  );
  console.log(
    `seed ${scenario.seed}: ${state.runs.length} runs (` +
      `${[...outcome].map(([status, n]) => `${n} ${status}`).join(', ')}), ` +
      `pool at most ${most} of ${POOL_BUDGET} bytes in ${pool.length} looks, ${found.length} broken rules`,
  );
  const stuck = unfinishedRuns(state).length > 0;
  if (!stuck) {
    const ok = state.runs.filter((run) => run.status === 'ok').map((run) => run.id);
    const fresh = await newContext();
    found.push(...(await roundTrips(checker.app, fresh, ok)));
  }
  for (const tab of [...tabs.open.values(), checker]) tabs.errors.push(...tab.errors);
  found.push(...tabs.errors.map((error) => `uncaught page error: ${error.split('\n')[0]}`));
  return found;
}

for (const seed of seeds()) {
  test(
    `fuzz seed ${seed}: runs and faults across tabs leave IndexedDB consistent`,
    heavy,
    async ({ page, browser, testContextOptions }) => {
      // Faults, then a settling window longer than a lease and a few sweeps.
      test.setTimeout(SETTLE_MS + 4 * (LEASE_MS + SWEEP_MS) + 120_000);
      const scenario = only(scenarioFor(seed), process.env.FUZZ_STEPS);
      const described = describeScenario(scenario);
      await test.info().attach('scenario', { body: described, contentType: 'text/plain' });
      const contexts: BrowserContext[] = [];
      const newContext = async () => {
        const context = await browser.newContext(testContextOptions);
        contexts.push(context);
        return context;
      };
      // The fixture's page is tab 0 (its uncaught errors fail the test as everywhere). The pool
      // budget is a setting kept from an earlier visit: every engine reads it when it starts.
      const first: Tab = { app: new Workbench(page), errors: [] };
      await first.app.open();
      await storeSetting(page, 'pool-budgets', { wasm: POOL_BUDGET, webgpu: POOL_BUDGET });
      await first.app.reload();
      try {
        const found = await runScenario(scenario, first, newContext);
        const steps =
          process.env.FUZZ_STEPS === undefined ? '' : ` --steps ${process.env.FUZZ_STEPS}`;
        expect(found, `replay: npm run fuzz -- --seed ${seed}${steps}\n${described}`).toEqual([]);
      } finally {
        for (const context of contexts) await context.close();
      }
    },
  );
}

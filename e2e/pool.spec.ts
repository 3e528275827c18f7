/**
 * One device pool per browser: the tabs of one profile admit their model
 * programs against one budget. Two tabs each run a training that fits the
 * budget alone but not beside the other's: the second waits (deferred, not
 * failed) while the first trains, its pool view says so and shows the first
 * tab's bookings, and what is booked never exceeds the budget; once the
 * first run ends, the second trains and ends ok.
 */
import { expect, test } from './fixtures';
import { Programs } from './pages/programs';
import { readPoolBookings } from './support/stored';
import { openTab } from './support/tabs';
import type { Workbench } from './pages/workbench';

/** Batches of 256 rows: the loop books 9.74 KB of weights and momentum and a 111 KB step peak. */
const BATCH = 256;
/** Room for one such training (121 KB) and an evaluation (84 KB), not for two trainings. */
const BUDGET_MB = 0.22;

async function trainInBatchesOf(app: Workbench, rows: number): Promise<void> {
  await app.canvas.select('train');
  await app.inspector.setParam('batch_size', rows);
}

test('two tabs book one pool budget: the second waits for the first and shows its bookings', async ({
  app,
  params,
  toolbar,
  runs,
  alerts,
}) => {
  const programs = new Programs(app.page);
  await trainInBatchesOf(app, BATCH);
  await params.set('steps', 10);
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  // The budget is the browser's: set in this tab, it holds in every tab.
  await programs.setBudgetMb(BUDGET_MB);
  await expect(programs.pool.getByRole('form', { name: 'Pool budget' })).toContainText('setting');

  // The first tab trains for far longer than the test waits. It starts before the second tab
  // opens: any open tab's engine may take a queued run, and the second tab's, had it taken this
  // one, would hold its bytes as its own, not as another tab's.
  await params.set('steps', 100_000);
  await toolbar.run();
  await expect(runs.rows).toHaveCount(2);
  const first = await runs.idOf(runs.newest);
  await expect(
    programs.nodePool('train').getByRole('list', { name: 'Requests of train' }),
  ).toContainText('train running');

  const second = await openTab(app.page.context());
  await trainInBatchesOf(second.app, BATCH);
  await second.app.params.set('steps', 40);

  // The edges leaving the training move while it runs, unless the person asked for less motion
  // (these tests do, playwright.config.ts): then they keep their dashes and stand still.
  const moving = app.page.locator('.react-flow__edge-path.fb-edge-running').first();
  await expect(moving).toHaveCSS('animation-name', 'none');
  await app.page.emulateMedia({ reducedMotion: 'no-preference' });
  await expect(moving).toHaveCSS('animation-name', 'dashdraw');
  await app.page.emulateMedia({ reducedMotion: 'reduce' });
  // Zoomed out to far cards they stand still (a dash there is a fraction of a pixel), and come
  // back once zoomed in.
  const running = app.page.locator('.react-flow__edge-path.fb-edge-running');
  const edgesMoving = await running.count();
  for (let i = 0; i < 12 && (await app.canvas.view()).zoom >= 0.35; i++)
    await app.canvas.zoomOutButton.click();
  await expect(app.canvas.nodes.first()).toHaveClass(/fb-node-far/);
  await expect(running).toHaveCount(0);
  for (let i = 0; i < 12 && (await app.canvas.view()).zoom < 0.35; i++)
    await app.canvas.zoomInButton.click();
  await expect(running).toHaveCount(edgesMoving);

  // Sample what every tab booked, from IndexedDB, until the test ends.
  let most = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const rows = await readPoolBookings(app.page);
      most = Math.max(
        most,
        rows.reduce((sum, row) => sum + row.bytes, 0),
      );
      await app.page.waitForTimeout(50);
    }
  })();

  await second.app.toolbar.run();
  await expect(second.app.runs.rows).toHaveCount(3);
  const other = new Programs(second.app.page);
  const train = other.nodePool('train');
  await expect(train.getByRole('list', { name: 'Waiting in train' })).toContainText(
    /train waits: train: needs .*9\.74 KB weights and optimizer state \+ 111 KB step peak = 121 KB; other tabs hold 121 KB/,
  );
  await expect(train.getByRole('list', { name: 'Booked by other tabs' })).toContainText(
    "train 121 KB: train: weights, optimizer state and a step's peak",
  );
  await expect(train.getByRole('list', { name: 'Requests of train' })).toContainText(
    'train waiting',
  );
  // Deferred, not failed: the run goes on waiting while the first tab trains.
  await expect(second.app.runs.newest).toContainText('running');

  await toolbar.cancelRun();
  await runs.expectStatus(runs.row(first), 'cancelled');
  await second.app.runs.expectStatus(second.app.runs.newest, 'ok');
  await expect(train).toContainText('train on wasm (ended)');
  await expect(train.getByRole('list', { name: 'Requests of train' })).toContainText('train ok');

  sampling = false;
  await sampler;
  expect(most).toBeGreaterThanOrEqual(120_612);
  expect(most).toBeLessThanOrEqual(BUDGET_MB * 1e6);
  // Every booking went back with the runs.
  await expect.poll(async () => (await readPoolBookings(app.page)).length).toBe(0);
  await expect(alerts.all).toHaveCount(0);
  expect(second.errors).toEqual([]);
});

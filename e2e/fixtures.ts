/**
 * The e2e test API: `test` with the app already open on a fresh browser
 * context (so a fresh IndexedDB), and one page object per UI region. Specs
 * drive the app by role and accessible name (docs/architecture.md, "UI contract").
 */
import {
  test as base,
  expect,
  type BrowserContextOptions,
  type ConsoleMessage,
} from '@playwright/test';
import type { Alerts } from './pages/alerts';
import type { Canvas } from './pages/canvas';
import type { Charts } from './pages/charts';
import type { Inspector } from './pages/inspector';
import type { Library } from './pages/library';
import type { RunParameters } from './pages/params';
import type { Runs } from './pages/runs';
import type { Toolbar } from './pages/toolbar';
import { Workbench } from './pages/workbench';
import { startPreview } from './support/preview';
import type { EngineTimings } from '../src/db/settings';
import { storeSetting } from './support/stored';
import { pageErrorText } from './support/tabs';
import { takeTurn, type Turn } from './support/turns';

export interface Fixtures {
  /** The app, open on this test's own fresh context. */
  app: Workbench;
  toolbar: Toolbar;
  canvas: Canvas;
  charts: Charts;
  runs: Runs;
  params: RunParameters;
  alerts: Alerts;
  library: Library;
  inspector: Inspector;
  /**
   * The options of this test's own context (playwright.config.ts's `use`, and
   * a spec's `test.use`), for a context a spec opens itself: it then behaves
   * as the test's own does (same server, viewport, motion, downloads, and no
   * service worker precaching the build into it).
   */
  testContextOptions: BrowserContextOptions;
  /** Open the app in another fresh browser context (another person's browser). */
  openFreshApp: () => Promise<Workbench>;
  /** Fails the test when a page throws an uncaught error. */
  noPageErrors: undefined;
  /** On a failure, attaches what the page and its workers logged as warnings and errors. */
  consoleOnFailure: undefined;
  /**
   * Set with `test.use({ alone: true })` in a spec that loads the machine on
   * purpose, or whose assertions need it quiet: no other test runs beside it.
   * Such a test is also tagged `@alone`, which puts it in the `heavy` project.
   * A test tagged `@heavy` (several tabs running at once) or `@webgpu`
   * (WebGPU in software) takes most of a core for long: one such test at a
   * time, beside ordinary ones (support/turns.ts, and the `heavy` project of
   * playwright.config.ts, which gives them one worker of their own).
   */
  alone: boolean;
  /**
   * Set with `test.use({ engineTimings: SHORT_TIMINGS })` in a spec that waits
   * for a lease to run out, a sweep or a storage stall: the app opens with
   * these engine waits instead of the defaults (the `engineTimings` setting),
   * in this tab and every other tab of its context.
   */
  engineTimings: EngineTimings | null;

  /**
   * This test's turn on the machine (support/turns.ts), taken before its
   * browser context opens. A `beforeAll` hook that does measured work asks
   * for it, as hooks get no automatic fixture.
   */
  turn: Turn;
}

export interface WorkerFixtures {
  /**
   * Where this worker's own preview server answers (support/preview.ts):
   * workers run side by side, each on its own port, so none waits for or
   * disturbs another's server. `baseURL` follows it.
   */
  appURL: string;
}

export const test = base.extend<Fixtures, WorkerFixtures>({
  alone: [false, { option: true }],
  engineTimings: [null, { option: true }],
  // Declared first: Playwright sets automatic fixtures up in the order they are declared, so the
  // turn is taken before noPageErrors opens this test's page.
  turn: [
    async ({ alone }, use, testInfo) => {
      // An alone test waits for every other test to end: from the one-worker `heavy` project
      // (playwright.config.ts) that is the ordinary test beside it, from the other worker the
      // heavy test of the moment, with that worker idle meanwhile.
      if (alone && testInfo.project.name === 'ordinary')
        throw new Error(
          `'${testInfo.title}' runs alone: tag it '@alone' so that it takes its turn in the heavy project`,
        );
      const heavy = testInfo.tags.some((tag) => tag === '@heavy' || tag === '@webgpu');
      const turn: Turn = alone ? 'alone' : heavy ? 'heavy' : 'shared';
      const giveBack = await takeTurn(turn);
      try {
        await use(turn);
      } finally {
        giveBack();
      }
    },
    // Its own time budget: waiting for a neighbour's long test is no part of this test's time.
    { auto: true, timeout: 600_000 },
  ],
  appURL: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from this pattern
    async ({}, use) => {
      const server = await startPreview();
      await use(server.url);
      await server.close();
    },
    { scope: 'worker' },
  ],
  baseURL: async ({ appURL }, use) => use(appURL),
  noPageErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(pageErrorText(error)));
      await use(undefined);
      expect(errors, 'uncaught errors in the page').toEqual([]);
    },
    { auto: true },
  ],
  consoleOnFailure: [
    async ({ page }, use, testInfo) => {
      const lines: string[] = [];
      const listen = (where: string) => (message: ConsoleMessage) => {
        if (message.type() === 'error' || message.type() === 'warning')
          lines.push(`${new Date().toISOString()} ${where} ${message.type()}: ${message.text()}`);
      };
      page.on('console', listen('page'));
      page.on('worker', (worker) => worker.on('console', listen(worker.url())));
      await use(undefined);
      if (testInfo.status !== testInfo.expectedStatus && lines.length > 0)
        await testInfo.attach('console warnings and errors', {
          body: lines.join('\n'),
          contentType: 'text/plain',
        });
    },
    { auto: true },
  ],
  app: async ({ page, engineTimings }, use) => {
    const app = new Workbench(page);
    await app.open();
    if (engineTimings !== null) {
      await storeSetting(page, 'engine-timings', engineTimings);
      await app.reload();
    }
    await use(app);
  },
  toolbar: async ({ app }, use) => use(app.toolbar),
  canvas: async ({ app }, use) => use(app.canvas),
  charts: async ({ app }, use) => use(app.charts),
  runs: async ({ app }, use) => use(app.runs),
  params: async ({ app }, use) => use(app.params),
  alerts: async ({ app }, use) => use(app.alerts),
  library: async ({ app }, use) => use(app.library),
  inspector: async ({ app }, use) => use(app.inspector),
  testContextOptions: async (
    { baseURL, viewport, reducedMotion, acceptDownloads, serviceWorkers },
    use,
  ) => use({ baseURL, viewport, reducedMotion, acceptDownloads, serviceWorkers }),
  openFreshApp: async ({ browser, testContextOptions }, use) => {
    const contexts: Awaited<ReturnType<typeof browser.newContext>>[] = [];
    await use(async () => {
      const context = await browser.newContext(testContextOptions);
      contexts.push(context);
      const app = new Workbench(await context.newPage());
      await app.open();
      return app;
    });
    for (const context of contexts) await context.close();
  },
});

export { expect };

/** The default example's nodes, in flow order. */
export const exampleNodes = ['data', 'split', 'model', 'train', 'eval'] as const;

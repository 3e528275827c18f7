/**
 * The e2e test API: `test` with the app already open on a fresh browser
 * context (so a fresh IndexedDB), and one page object per UI region. Specs
 * drive the app by role and accessible name (DESIGN.md, "UI contract").
 */
import { test as base, expect } from '@playwright/test';
import type { Alerts } from './pages/alerts';
import type { Canvas } from './pages/canvas';
import type { Charts } from './pages/charts';
import type { Inspector } from './pages/inspector';
import type { Library } from './pages/library';
import type { RunParameters } from './pages/params';
import type { Runs } from './pages/runs';
import type { Toolbar } from './pages/toolbar';
import { Workbench } from './pages/workbench';

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
  /** Open the app in another fresh browser context (another person's browser). */
  openFreshApp: () => Promise<Workbench>;
  /** Fails the test when a page throws an uncaught error. */
  noPageErrors: undefined;
}

export const test = base.extend<Fixtures>({
  noPageErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.stack ?? error.message));
      await use(undefined);
      expect(errors, 'uncaught errors in the page').toEqual([]);
    },
    { auto: true },
  ],
  app: async ({ page }, use) => {
    const app = new Workbench(page);
    await app.open();
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
  openFreshApp: async ({ browser, baseURL, viewport }, use) => {
    const contexts: Awaited<ReturnType<typeof browser.newContext>>[] = [];
    await use(async () => {
      const context = await browser.newContext({ baseURL, viewport, acceptDownloads: true });
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

/**
 * The e2e test API: `test` with the app already open on a fresh browser
 * context (so a fresh IndexedDB), and one page object per UI region. Specs
 * drive the app by role and accessible name (DESIGN.md, "UI contract").
 */
import { test as base, expect, type ConsoleMessage } from '@playwright/test';
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
  /** On a failure, attaches what the page and its workers logged as warnings and errors. */
  consoleOnFailure: undefined;
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

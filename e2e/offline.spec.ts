/**
 * Installable and offline, on a static host that sends no headers: after one
 * visit the service worker controls the page and the next load is cross-origin
 * isolated under the app's Content-Security-Policy; with the network off, a
 * reload still opens the app, trains the default example and exports the run;
 * when a new version is deployed, the app says so and loads it on the person's
 * word, never while a run goes.
 * (Every other spec runs with service workers blocked: playwright.config.ts.)
 */
import { expect, test as base } from './fixtures';
import { startStaticServer, type StaticServer } from './support/static-server';

const test = base.extend<object, { host: StaticServer }>({
  host: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from this pattern
    async ({}, use) => {
      const server = await startStaticServer();
      await use(server);
      await server.close();
    },
    { scope: 'worker' },
  ],
  baseURL: async ({ host }, use) => use(host.url),
});
test.use({ serviceWorkers: 'allow' });

test('after one visit the app is isolated, installable, and trains and exports offline', async ({
  app,
  page,
  context,
  params,
  toolbar,
  runs,
  alerts,
  host,
}) => {
  // The first visit: no headers from the host, so not isolated yet; the worker installs and claims.
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller)
      await new Promise((resolve) =>
        navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }),
      );
  });
  // Installable: Chromium finds nothing missing (a test's context is incognito, which it notes).
  const cdp = await context.newCDPSession(page);
  const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
  expect(installabilityErrors.filter((e) => e.errorId !== 'in-incognito')).toEqual([]);
  expect((await cdp.send('Page.getAppManifest')).errors).toEqual([]);

  await context.setOffline(true);
  await app.reload();
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  // The policy is in force: an inline script is refused.
  expect(
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.inlineRan = true';
      document.head.append(script);
      return 'inlineRan' in window;
    }),
  ).toBe(false);

  await params.set('steps', 10);
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  const exported = await runs.exportRun();
  expect(exported.json.run.status).toBe('ok');
  expect(exported.json.run.engine?.backend).toBe('wasm');
  await expect(alerts.all).toHaveCount(0);

  // Back online, a new version is deployed: the app says so, and while a run goes it waits.
  await context.setOffline(false);
  host.deployNewVersion();
  await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.update());
  const notice = page.getByRole('status').filter({ hasText: 'Update available' });
  const reload = notice.getByRole('button', { name: 'Reload' });
  await expect(reload).toBeEnabled();
  await params.set('steps', 100_000);
  await toolbar.run();
  await expect(runs.rows).toHaveCount(2);
  await runs.expectStatus(runs.newest, 'running');
  await expect(reload).toBeDisabled();
  await expect(reload).toHaveAttribute('title', 'Reload when the running runs have finished');
  // The run ended, the new version loads when told to.
  await toolbar.cancelRun();
  await runs.expectStatus(runs.newest, 'cancelled');
  await expect(reload).toBeEnabled();
  await Promise.all([page.waitForEvent('load', { timeout: 30_000 }), reload.click()]);
  await expect(notice).toHaveCount(0);
  await expect(runs.rows).toHaveCount(2);
});

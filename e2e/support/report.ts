/** Portable reports in the e2e: export one from the charts, open a file offline. */
import { expect, type BrowserContext, type Page } from '@playwright/test';

/** `Export report` in the `Charts` region; resolves with where the file was saved (`path`). */
export async function exportReport(page: Page, path: string): Promise<string> {
  const charts = page.getByRole('region', { name: 'Charts', exact: true });
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    charts.getByRole('button', { name: 'Export report' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^flowbench-report-\d+-runs?\.html$/);
  await download.saveAs(path);
  return path;
}

/**
 * Open the HTML file at `path` in a new page of `context` with the network
 * off, as someone opening a report they were sent; a dialog it opens fails the test.
 */
export async function openOffline(context: BrowserContext, path: string): Promise<Page> {
  await context.setOffline(true);
  const page = await context.newPage();
  page.on('dialog', (dialog) => {
    throw new Error(`the report opened a dialog: ${dialog.message()}`);
  });
  await page.goto(`file://${path}`);
  return page;
}

/**
 * The compare row (issue 24: "compare 50 picked runs draws in ≤ 200 ms"), on
 * the production build in Chromium: 1,000 imported runs, the table filtered
 * to 50 of them (`lr=0.1 batch=8`) and the first selected, then _Pick all
 * shown_ ticked, as a person does, timed in the page from the click to the
 * frame after the loss chart holds all 50 runs' curves; unticked between
 * trials, and each trial ticked once the page has settled (idle twice): the
 * trials ran into the tail of the untick before them (its reads, the
 * parallel coordinates and the table redrawn), which a person picking again
 * seconds later never meets. The export row (the issue's "export of picked runs stays
 * instant"): with those 50 picked, _Export metrics (CSV)_ clicked, timed in
 * the page from the click to the file being offered (the download link's
 * click), held to the compare row's 200 ms.
 */
import { loadavg } from 'node:os';
import type { Page } from '@playwright/test';
import { Runs } from '../../e2e/pages/runs';
import { absoluteRow, atMost, type BenchRow } from '../lib/rows';
import { median, percentile } from '../lib/stats';
import { appContext, withApp, type AppBenchOptions } from './app-session';
import { importSweep } from './imported-sweep';

const RUNS = 1_000;
const COMPARED = 50;
const TRIALS = 10;
const EXPORTS = 10;
const EXPORT_BUTTON = 'Export metrics (CSV)';
const LOSS_CHART = '[role="img"][aria-label="Chart: train.loss"]';

interface CompareWindow {
  __compared: Promise<number>;
}

/**
 * Until the page has been idle twice: what the last step set off (the import's
 * deferred work, the last untick's reads and redraws) is over, as it is by the
 * time a person picks again.
 */
const settled = (page: Page) =>
  page.evaluate(
    () =>
      new Promise<void>((resolve) =>
        requestIdleCallback(() => requestIdleCallback(() => resolve())),
      ),
  );

/** Ms from ticking Pick all shown to the frame after the loss chart holds `COMPARED` curves. */
async function compareOnce(page: Page, runs: Runs): Promise<number> {
  await settled(page);
  await page.evaluate(
    ([chart, wanted]) => {
      const box = document.querySelector('input[aria-label="Pick all shown"]');
      if (!box) throw new Error('no Pick all shown');
      (window as unknown as CompareWindow).__compared = new Promise<number>((resolve, reject) => {
        let clicked = 0;
        box.addEventListener('click', () => (clicked = performance.now()), {
          capture: true,
          once: true,
        });
        // The whole page is watched: the chart may be drawn anew, not only changed.
        const observer = new MutationObserver(() => {
          if (document.querySelector(chart)?.getAttribute('data-series') !== String(wanted)) return;
          observer.disconnect();
          requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - clicked), 0));
        });
        observer.observe(document.body, {
          subtree: true,
          childList: true,
          attributes: true,
          attributeFilter: ['data-series'],
        });
        setTimeout(() => reject(new Error(`the chart never held ${wanted} curves`)), 30_000);
      });
      // Ticked here: Playwright's check() would look the box up again by its role and name after
      // the click, running its selector engine on the page's thread inside the timed span.
      (box as HTMLInputElement).click();
    },
    [LOSS_CHART, COMPARED] as const,
  );
  const took = await page.evaluate(() => (window as unknown as CompareWindow).__compared);
  await runs.pickAllShown.uncheck();
  await page.locator(`${LOSS_CHART}[data-series="1"]`).waitFor({ timeout: 30_000 });
  return took;
}

/** Ms from clicking Export metrics (CSV) to the page offering the file (its link clicked). */
function exportOnce(page: Page): Promise<number> {
  return page.evaluate(async (label) => {
    const button = Array.from(document.querySelectorAll<HTMLButtonElement>('button')).find(
      (b) => b.textContent.trim() === label,
    );
    if (!button || button.disabled) throw new Error(`no ${label} to click`);
    // The page's downloads go through a link's click: held for the trial, so only the moment
    // the file is offered is measured, and nothing is saved.
    // (`click` is HTMLElement's: a link's own, shadowing it, is dropped afterwards.)
    const proto = HTMLAnchorElement.prototype;
    try {
      return await new Promise<number>((resolve, reject) => {
        let clicked = 0;
        Object.defineProperty(proto, 'click', {
          configurable: true,
          value(this: HTMLAnchorElement) {
            if (this.download) resolve(performance.now() - clicked);
          },
        });
        setTimeout(() => reject(new Error('no file was offered')), 30_000);
        clicked = performance.now();
        button.click();
      });
    } finally {
      Reflect.deleteProperty(proto, 'click');
    }
  }, EXPORT_BUTTON);
}

export async function compareRows(options: AppBenchOptions): Promise<BenchRow[]> {
  return withApp(options, async (browser, url) => {
    const context = await appContext(browser);
    const page = await context.newPage();
    await page.goto(url);
    options.log(`compare: importing ${RUNS} runs…`);
    await importSweep(page, RUNS);
    const runs = new Runs(page);
    await runs.filter('lr=0.1 batch=8');
    await runs.count
      .getByText(`${RUNS.toLocaleString('en-US')} runs · ${COMPARED} shown`)
      .waitFor({ timeout: 30_000 });
    await runs.rows.first().click();
    await page.locator(`${LOSS_CHART}[data-series="1"]`).waitFor({ timeout: 30_000 });
    const times: number[] = [];
    for (let i = 0; i < TRIALS; i++) times.push(await compareOnce(page, runs));
    await runs.pickAllShown.check();
    const exports: number[] = [];
    for (let i = 0; i < EXPORTS; i++) exports.push(await exportOnce(page));
    await context.close();
    return [
      absoluteRow({
        name: `compare ${COMPARED} picked runs, ${RUNS.toLocaleString('en-US')} in the table, p95`,
        unit: 'ms',
        value: percentile(times, 95),
        target: atMost(200, 'ms'),
        trials: TRIALS,
        note: `median ${median(times).toFixed(0)} ms; Pick all shown ticked on a settled page (idle twice) → the frame after the loss chart holds ${COMPARED} curves; load average ${loadavg()[0]!.toFixed(1)}`,
      }),
      absoluteRow({
        name: `export ${COMPARED} picked runs' metrics, ${RUNS.toLocaleString('en-US')} in the table, p95`,
        unit: 'ms',
        value: percentile(exports, 95),
        target: atMost(200, 'ms'),
        trials: EXPORTS,
        note: `median ${median(exports).toFixed(0)} ms; ${EXPORT_BUTTON} clicked → the file offered (its download link clicked), ${COMPARED} runs of 10 loss points each; load average ${loadavg()[0]!.toFixed(1)}`,
      }),
    ];
  });
}

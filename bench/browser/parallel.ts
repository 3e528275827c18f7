/**
 * The parallel coordinates' row (issue 21: "responsive with 1,000 runs"), on
 * the production build in Chromium: a sweep of 1,000 imported runs (params,
 * seed and a result vary), its run selected so the view draws the whole
 * sweep, then brushes dragged along the lr axis by the mouse, as a person
 * does. Each brush is timed in the page from the pointer's release to the
 * frame after the view's count of brushed runs changed (the canvas redrawn,
 * the Runs table filtered), beside the same measure on a sweep of 100.
 */
import { loadavg } from 'node:os';
import type { Browser, Page } from '@playwright/test';
import { ParallelCoordinates } from '../../e2e/pages/parallel-coordinates';
import { absoluteRow, atMost, compareRow, noTarget, type BenchRow } from '../lib/rows';
import { median, percentile } from '../lib/stats';
import { appContext, withApp, type AppBenchOptions } from './app-session';
import { importSweep } from './imported-sweep';

const SMALL = 100;
const BIG = 1_000;
const BRUSHES = 20;

const load = () => `load average ${loadavg()[0]!.toFixed(1)}`;

interface BrushWindow {
  __brushed: Promise<number>;
}

async function openSweep(browser: Browser, url: string, count: number): Promise<Page> {
  const context = await appContext(browser);
  const page = await context.newPage();
  await page.goto(url);
  await importSweep(page, count);
  await page.getByRole('table', { name: 'Runs' }).getByRole('row').nth(1).click();
  await new ParallelCoordinates(page).plot
    .and(page.locator(`[data-runs="${count}"]`))
    .waitFor({ timeout: 60_000 });
  return page;
}

/** Ms from releasing a brush dragged on lr from `from` to `to` to the frame after the view counted it. */
async function brushOnce(page: Page, from: number, to: number): Promise<number> {
  const view = new ParallelCoordinates(page);
  await view.plot.scrollIntoViewIfNeeded();
  const header = await view.axis('lr').boundingBox();
  const plot = await view.plot.boundingBox();
  if (!header || !plot) throw new Error('the lr axis is not on screen');
  const top = Number(await view.plot.getAttribute('data-plot-top'));
  const bottom = Number(await view.plot.getAttribute('data-plot-bottom'));
  const x = header.x + header.width / 2;
  const y = (at: number) => plot.y + bottom - at * (bottom - top);
  await page.mouse.move(x, y(from));
  await page.mouse.down();
  await page.mouse.move(x, y(to), { steps: 4 });
  await page.evaluate(() => {
    const status = document.querySelector('[role="status"][aria-label="Brushed runs"]');
    if (!status) throw new Error('no brushed-runs count');
    const before = status.textContent;
    (window as unknown as BrushWindow).__brushed = new Promise<number>((resolve) => {
      let released = 0;
      addEventListener('pointerup', () => (released = performance.now()), {
        capture: true,
        once: true,
      });
      const observer = new MutationObserver(() => {
        if (status.textContent === before) return;
        observer.disconnect();
        requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - released), 0));
      });
      observer.observe(status, { subtree: true, childList: true, characterData: true });
    });
  });
  await page.mouse.up();
  return page.evaluate(() => (window as unknown as BrushWindow).__brushed);
}

/** Brush times on a sweep of `count`: alternately the top and bottom halves of lr, so each changes the count. */
async function brushTimes(browser: Browser, url: string, count: number): Promise<number[]> {
  const page = await openSweep(browser, url, count);
  try {
    const times: number[] = [];
    for (let i = 0; i < BRUSHES; i++)
      times.push(await brushOnce(page, i % 2 ? 0.05 : 0.55, i % 2 ? 0.45 : 0.95));
    return times;
  } finally {
    await page.context().close();
  }
}

export async function parallelRows(options: AppBenchOptions): Promise<BenchRow[]> {
  const name = `parallel coordinates: a brush, ${BIG.toLocaleString('en-US')} runs`;
  return withApp(options, async (browser, url) => {
    options.log(`parallel: a sweep of ${SMALL}…`);
    const small = await brushTimes(browser, url, SMALL);
    options.log(`parallel: a sweep of ${BIG}…`);
    const big = await brushTimes(browser, url, BIG);
    return [
      absoluteRow({
        name: `${name}, p95`,
        unit: 'ms',
        value: percentile(big, 95),
        target: atMost(100, 'ms'),
        trials: BRUSHES,
        note: `median ${median(big).toFixed(1)} ms; pointer released → the frame after the view's count changed (canvas redrawn, Runs table filtered); ${load()}`,
      }),
      compareRow({
        name: `${name} vs ${SMALL}`,
        unit: 'ms',
        lowerIsBetter: true,
        ours: big,
        reference: small,
        target: noTarget,
        note: `the same brushes on a sweep of ${SMALL}; the issue sets no ratio; ${load()}`,
      }),
    ];
  });
}

/**
 * Row 4, on the production build in Chromium:
 *
 * - time to an interactive editor with a 200-node flow: the flow is imported
 *   through the app's own Import input (so it is in IndexedDB and reopens
 *   after a reload, as for a returning person); each trial navigates to the
 *   app and counts from navigation start to the first frame in which all 200
 *   nodes are on the canvas and visible, plus the wait for a task posted then
 *   (so a long task still running keeps the editor "not interactive"). The
 *   reference is the same measurement with the 5-node example, alternating.
 * - JavaScript bytes on the first load of a fresh profile, gzipped, with
 *   onnxruntime counted apart (it must load lazily, in the worker).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page, Response } from '@playwright/test';
import { absoluteRow, atMost, compareRow, type BenchRow } from '../lib/rows';
import { alternate } from '../lib/stats';
import { exampleFlow, repeatedExample } from './flows';

/** Nodes in the flow the startup row opens. */
export const STARTUP_NODES = 200;
const READY = '__flowbenchReady';

/** The probe (see ready-probe.js) with its arguments filled in. */
function readyProbe(expected: number): string {
  const source = readFileSync(path.join(import.meta.dirname, 'ready-probe.js'), 'utf8');
  return source.replace('__FLOWBENCH_PROBE__);', `${JSON.stringify([expected, READY])});`);
}

async function openProfile(
  browser: Browser,
  expected: number,
): Promise<{ context: BrowserContext; page: Page }> {
  // The app's service worker would precache the whole build (~42 MB) beside what is measured.
  const context = await browser.newContext({
    viewport: { width: 1440, height: 900 },
    serviceWorkers: 'block',
  });
  await context.addInitScript({ content: readyProbe(expected) });
  return { context, page: await context.newPage() };
}

/** Navigate and return ms from navigation start to the editor ready with its nodes. */
async function timeToReady(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  const handle = await page.waitForFunction(
    (key) => (window as unknown as Record<string, number | undefined>)[key],
    READY,
    {
      timeout: 60_000,
      polling: 50,
    },
  );
  const ms = (await handle.jsonValue()) as number;
  // Park the page so its app (and worker) sits idle while the other side is measured.
  await page.goto('about:blank');
  return ms;
}

interface Script {
  url: string;
  raw: number;
  gzip: number;
}

const isOrt = (url: string) => /onnxruntime|\/ort[-.]/i.test(url);

async function scriptOf(response: Response): Promise<Script | null> {
  const url = response.url();
  const type = response.headers()['content-type'] ?? '';
  const js = /javascript|ecmascript/.test(type) || /\.m?js(\?|$)/.test(new URL(url).pathname);
  if (!js || !response.ok()) return null;
  try {
    const body = await response.body();
    return { url, raw: body.byteLength, gzip: gzipSync(body).byteLength };
  } catch {
    return null;
  }
}

export async function startupRows(
  browser: Browser,
  appUrl: string,
  asFound: boolean,
): Promise<BenchRow[]> {
  const build = asFound ? '; dist/ served as found (--no-build)' : '';
  const big = await openProfile(browser, STARTUP_NODES);
  const small = await openProfile(browser, exampleFlow().nodes.length);
  try {
    // First load of a fresh profile: every script the page and its workers fetch.
    const pending: Promise<Script | null>[] = [];
    let wasm = 0;
    big.context.on('response', (response) => {
      if (/\.wasm(\?|$)/.test(response.url())) wasm++;
      pending.push(scriptOf(response));
    });
    await big.page.goto(appUrl);
    await big.page
      .getByTestId(/^node-/)
      .first()
      .waitFor({ timeout: 60_000 });
    await big.page.waitForLoadState('networkidle');
    big.context.removeAllListeners('response');
    const scripts = (await Promise.all(pending)).filter((s): s is Script => s !== null);
    const app = scripts.filter((s) => !isOrt(s.url));
    const ort = scripts.filter((s) => isOrt(s.url));
    const kb = (bytes: number) => bytes / 1024;
    const gzipKb = kb(app.reduce((sum, s) => sum + s.gzip, 0));
    const bytesRow = absoluteRow({
      name: 'first-load JavaScript, gzipped, without ORT',
      unit: 'KB',
      value: gzipKb,
      target: atMost(400, 'KB'),
      trials: 1,
      note: `${app.length} scripts, ${kb(app.reduce((s, x) => s + x.raw, 0)).toFixed(0)} KB raw, gzip level 6 (page and workers); onnxruntime on first load: ${ort.length} scripts, ${kb(ort.reduce((s, x) => s + x.gzip, 0)).toFixed(0)} KB gzipped, ${wasm} .wasm${build}`,
    });

    // Seed the big profile through the app's own Import input.
    const flow = repeatedExample(STARTUP_NODES);
    await big.page.getByLabel('Import').setInputFiles({
      name: `${flow.name}.flow.json`,
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(flow)),
    });
    await big.page.getByTestId(`node-${flow.nodes.at(-1)!.id}`).waitFor({ timeout: 60_000 });
    // The open flow is remembered in IndexedDB just after it is drawn.
    await big.page.waitForTimeout(1_000);
    await small.page.goto(appUrl);
    await small.page
      .getByTestId(/^node-/)
      .first()
      .waitFor({ timeout: 60_000 });
    await small.page.waitForTimeout(1_000);

    const { a, b } = await alternate({
      a: () => timeToReady(big.page, appUrl),
      b: () => timeToReady(small.page, appUrl),
      warmups: 1,
      minTrials: 5,
      maxTrials: 9,
      budgetMs: 30_000,
    });
    const startupRow = compareRow({
      name: `startup to interactive editor, ${STARTUP_NODES}-node flow`,
      unit: 'ms',
      lowerIsBetter: true,
      ours: a,
      reference: b,
      target: atMost(1500, 'ms'),
      note: `navigation start → first frame with all ${STARTUP_NODES} nodes visible + one posted task; reload of a profile seeded through Import (warm HTTP cache); reference: the ${exampleFlow().nodes.length}-node example the same way${build}`,
    });
    return [startupRow, bytesRow];
  } finally {
    await big.context.close();
    await small.context.close();
  }
}

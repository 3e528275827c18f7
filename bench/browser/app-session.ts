/**
 * What the in-app bench parts share: the production build served and
 * Chromium launched for the part (both closed however it ends), and fresh
 * profiles on the app with the main thread's long tasks recorded.
 */
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { launchChromium } from './launch';
import { ensureAppBuilt, serveApp } from './servers';

export interface AppBenchOptions {
  noBuild: boolean;
  log: (line: string) => void;
}

/** Build (unless `noBuild`), serve and launch; `measure` gets the browser and the app's address. */
export async function withApp<T>(
  { noBuild, log }: AppBenchOptions,
  measure: (browser: Browser, url: string) => Promise<T>,
): Promise<T> {
  if (!noBuild) await ensureAppBuilt(log);
  const app = await serveApp();
  const browser = await launchChromium();
  try {
    return await measure(browser, app.url);
  } finally {
    await browser.close();
    await app.close();
  }
}

interface LongTaskWindow {
  __longTasks: { start: number; duration: number }[];
}

/**
 * A fresh profile, its pages recording the main thread's long tasks (Long
 * Tasks API) from their start. The app's service worker is blocked: it would
 * precache the whole build beside what is measured.
 */
export async function appContext(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: { width: 1440, height: 900 },
    serviceWorkers: 'block',
  });
  await context.addInitScript(() => {
    const tasks: { start: number; duration: number }[] = [];
    (window as unknown as LongTaskWindow).__longTasks = tasks;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries())
        tasks.push({ start: entry.startTime, duration: entry.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
  return context;
}

/** The page's long tasks that started at or after `from` (its `performance.now()`). */
export async function longTasksSince(
  page: Page,
  from: number,
): Promise<{ start: number; duration: number }[]> {
  const tasks = await page.evaluate(() => (window as unknown as LongTaskWindow).__longTasks);
  return tasks.filter((task) => task.start >= from);
}

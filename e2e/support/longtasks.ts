/**
 * Long tasks on the page's main thread, as Chromium reports them (the Long
 * Tasks API: any task over 50 ms). The observer is installed before the app's
 * own scripts run, so it sees every task from the first load on.
 */
import type { Page } from '@playwright/test';

/** One long task: when it started (page time, ms) and how long it ran. */
export interface LongTask {
  start: number;
  duration: number;
}

interface LongTaskWindow {
  __longTasks?: LongTask[];
  __longTaskObserver?: PerformanceObserver;
}

/** Start recording long tasks in `page`, from its next navigation on. */
export async function recordLongTasks(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as LongTaskWindow;
    const tasks: LongTask[] = [];
    w.__longTasks = tasks;
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries())
        tasks.push({ start: entry.startTime, duration: entry.duration });
    });
    observer.observe({ type: 'longtask', buffered: true });
    w.__longTaskObserver = observer;
  });
}

/** The page's clock now (ms since its navigation), to mark where a window of interest starts. */
export function pageNow(page: Page): Promise<number> {
  return page.evaluate(() => performance.now());
}

/**
 * Every long task that started at or after `since` (page time), once the
 * page has drawn two more frames so the tasks of the last update are in.
 */
export async function longTasksSince(page: Page, since: number): Promise<LongTask[]> {
  return page.evaluate(async (from) => {
    await new Promise<void>((resolve) =>
      requestAnimationFrame(() => requestAnimationFrame(() => resolve())),
    );
    const w = window as unknown as LongTaskWindow;
    if (!w.__longTasks || !w.__longTaskObserver)
      throw new Error('long tasks are not recorded in this page: call recordLongTasks first');
    for (const entry of w.__longTaskObserver.takeRecords())
      w.__longTasks.push({ start: entry.startTime, duration: entry.duration });
    return w.__longTasks.filter((t) => t.start >= from);
  }, since);
}

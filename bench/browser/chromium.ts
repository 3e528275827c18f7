/**
 * The browser rows: build what is needed, serve it with `vite preview`,
 * launch Chromium as the e2e tests do but with V8 as it ships (launch.ts) and run the
 * startup bench in fresh browser contexts. The metric rows are their own
 * suite (`metrics.ts`): their page does not need the app.
 */
import type { Browser } from '@playwright/test';
import { launchChromium } from './launch';
import { atMost, describeFailure, unmeasuredRow, type BenchRow } from '../lib/rows';
import { ensureAppBuilt, serveApp, type Served } from './servers';
import { STARTUP_NODES, startupRows } from './startup';

export interface BrowserOptions {
  /** Serve `dist/` as it is, without checking whether it is up to date. */
  noBuild: boolean;
  log: (line: string) => void;
}

export async function browserRows({ noBuild, log }: BrowserOptions): Promise<BenchRow[]> {
  const servers: Served[] = [];
  let browser: Browser | null = null;
  try {
    browser = await launchChromium();
    const rows: BenchRow[] = [];
    try {
      if (noBuild) log('app: serving dist/ as it is (--no-build)');
      else await ensureAppBuilt(log);
      const app = await serveApp();
      servers.push(app);
      log('chromium: startup…');
      rows.push(...(await startupRows(browser, app.url, noBuild)));
    } catch (error) {
      const why = describeFailure(error);
      log(`startup rows failed: ${why}`);
      rows.push(
        unmeasuredRow(
          `startup to interactive editor, ${STARTUP_NODES}-node flow`,
          'ms',
          atMost(1500, 'ms'),
          why,
        ),
        unmeasuredRow('first-load JavaScript, gzipped, without ORT', 'KB', atMost(400, 'KB'), why),
      );
    }
    return rows;
  } finally {
    await browser?.close();
    for (const server of servers) await server.close();
  }
}

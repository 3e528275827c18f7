/**
 * Chromium for the browser rows: Debian's, with the flags the e2e tests give
 * every browser (WebGPU, no background networking, no browser UI), but V8 as
 * it ships. The tests also run V8's baseline code only, to spend less CPU on
 * optimizing code they barely run; a bench row timed that way would time code
 * no person's browser runs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext } from '@playwright/test';
import { chromiumArgs } from '../../e2e/support/browser';
import playwrightConfig from '../../playwright.config';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: playwrightConfig.use?.launchOptions?.executablePath,
    args: chromiumArgs,
    headless: true,
  });
}

/**
 * The same Chromium with a profile on disk, as a person's browser keeps its
 * IndexedDB: a context made by `Browser.newContext()` keeps it in memory,
 * which Chromium does not tune for size (deleted rows there slow every later
 * transaction). `close()` closes the browser and deletes the profile.
 */
export async function launchChromiumWithProfile(): Promise<{
  context: BrowserContext;
  close: () => Promise<void>;
}> {
  const profile = await mkdtemp(path.join(tmpdir(), 'flowbench-bench-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: playwrightConfig.use?.launchOptions?.executablePath,
    args: chromiumArgs,
    headless: true,
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

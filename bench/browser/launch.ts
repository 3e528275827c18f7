/**
 * Chromium for the browser rows: Debian's, with the flags the e2e tests give
 * every browser (WebGPU, no background networking, no browser UI), but V8 as
 * it ships. The tests also run V8's baseline code only, to spend less CPU on
 * optimizing code they barely run; a bench row timed that way would time code
 * no person's browser runs.
 */
import { chromium, type Browser } from '@playwright/test';
import { chromiumArgs } from '../../e2e/support/browser';
import playwrightConfig from '../../playwright.config';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: playwrightConfig.use?.launchOptions?.executablePath,
    args: chromiumArgs,
    headless: true,
  });
}

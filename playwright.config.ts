import { defineConfig } from '@playwright/test';
import { baselineCode, chromiumArgs } from './e2e/support/browser';

export default defineConfig({
  testDir: 'e2e',
  // Specs only: e2e/support's own unit tests (`*.test.ts`) run under Vitest.
  testMatch: '**/*.spec.ts',
  timeout: 120_000,
  expect: { timeout: 30_000 },
  // Two workers for the two cores: much of a spec's time is the browser and the page waiting.
  // Each worker serves the build on a port of its own (fixtures.ts, `appURL`) and its browser
  // gives every test a fresh context, so no two tests share a server, an origin's storage or a
  // profile. A spec that sets `alone` (it loads the machine on purpose, or what it asserts needs
  // the machine quiet, and tagged `@alone`) runs with no other test beside it, and tests tagged
  // `@webgpu` (WebGPU in software) one at a time (support/turns.ts).
  workers: Number(process.env.E2E_WORKERS ?? 2),
  // Tests tagged `@heavy` (several tabs running at once) or `@webgpu` get one worker of their own,
  // so that they take turns on it while ordinary tests go on beside them: were they free to take
  // both workers, the second would sit waiting for the first's turn to end. Tests that run
  // `alone` (tagged `@alone`, fixtures.ts checks it) take their turns on that worker too: from
  // there one waits only for the ordinary test beside it to end, where from the other worker it
  // sat idle until the heavy test of the moment (up to a minute of a fuzz seed) had ended.
  projects: [
    { name: 'heavy', grep: /@heavy|@webgpu|@alone/, workers: 1 },
    { name: 'ordinary', grepInvert: /@heavy|@webgpu|@alone/ },
  ],
  fullyParallel: true,
  globalSetup: './e2e/support/global-setup.ts',
  retries: 0,
  // In CI a stray `test.only` fails the run instead of quietly skipping every other test.
  forbidOnly: Boolean(process.env.CI),
  reporter: process.env.CI ? [['list']] : [['list'], ['html', { open: 'never' }]],
  use: {
    acceptDownloads: true,
    // The app's service worker would precache the whole build (~42 MB) in every fresh context and
    // answer the page's requests: blocked, so each spec sees the server's files as they are.
    // offline.spec.ts allows it, to test it.
    serviceWorkers: 'block',
    // A failed test keeps its trace: every action with the page's DOM before and after it, its
    // network and console. Not the screencast, a JPEG of every frame the page paints: with the
    // canvas and a run's charts repainting several times a second, encoding those took a third of
    // the CPU of a spec (editor.spec.ts on one worker, two runs each way: 38.9 and 36.8 s of CPU
    // with it, 23.0 and 28.6 s without) and starved pages on a loaded 2-core machine. Nor the DOM
    // snapshots before and after each action: five specs (18 tests) took 332 s of CPU with them,
    // 269 s without, the same as with no trace at all (275 s). A failure still shows the page as
    // it was then, in its error context's accessibility snapshot.
    trace: { mode: 'retain-on-failure', screenshots: false, snapshots: false },
    // A person who asked for less motion: a running node's edges keep their dashes but do not
    // move. Moving, they repainted the canvas every frame of every run (the first run of a fresh
    // page: 0.3 s more of the page's CPU). A context a spec opens itself passes it on.
    reducedMotion: 'reduce',
    viewport: { width: 1440, height: 900 },
    launchOptions: {
      // Debian's Chromium: Playwright cannot download its own browsers here.
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      // WebGPU (SwiftShader when there is no GPU), no browser UI, V8's baseline code only
      // (support/browser.ts).
      args: [...chromiumArgs, baselineCode],
    },
  },
});

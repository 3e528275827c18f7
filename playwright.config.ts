import { defineConfig } from '@playwright/test';

// Another port (E2E_PORT) lets a second checkout run its suite beside this one.
const port = Number(process.env.E2E_PORT ?? 4173);

export default defineConfig({
  testDir: 'e2e',
  timeout: 120_000,
  expect: { timeout: 30_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: process.env.CI ? [['list']] : [['list'], ['html', { open: 'never' }]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    acceptDownloads: true,
    trace: 'retain-on-failure',
    viewport: { width: 1440, height: 900 },
    launchOptions: {
      // Debian's Chromium: Playwright cannot download its own browsers here.
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      // Gives navigator.gpu an adapter (SwiftShader when there is no GPU).
      args: ['--enable-unsafe-webgpu', '--disable-background-networking'],
    },
  },
  webServer: {
    // The built app, as a person gets it: `npm test` builds before e2e.
    // E2E_DIST serves another build folder than dist/.
    command: `npx vite preview --port ${port} --strictPort --host 127.0.0.1${process.env.E2E_PORT ? ' --bypass-lock' : ''}${process.env.E2E_DIST ? ` --outDir ${process.env.E2E_DIST}` : ''}`,
    url: `http://127.0.0.1:${port}`,
    reuseExistingServer: false,
    timeout: 60_000,
  },
});

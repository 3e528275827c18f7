/**
 * Builds the bench's own page (the metric write path) apart from the app:
 * the output goes under node_modules/.cache, so the app's `dist/` is never
 * touched, and preview serves it with the app's own cross-origin headers.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import appConfig, { pagePlugins } from '../../vite.config.ts';

/** `FLOWBENCH_BENCH_PAGE_DIR` builds (and serves) the page elsewhere, e.g. beside a running bench. */
export const benchPageOutDir =
  process.env.FLOWBENCH_BENCH_PAGE_DIR ??
  fileURLToPath(new URL('../../node_modules/.cache/flowbench-bench/web', import.meta.url));

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  logLevel: 'warn',
  build: {
    outDir: benchPageOutDir,
    emptyOutDir: true,
    target: 'es2022',
    // The metric write path, the charts (chart.html), the canvas (canvas.html) and the GPU
    // training rows (gpu.html, `npm run bench:gpu`).
    rolldownOptions: {
      input: {
        index: fileURLToPath(new URL('index.html', import.meta.url)),
        chart: fileURLToPath(new URL('chart.html', import.meta.url)),
        canvas: fileURLToPath(new URL('canvas.html', import.meta.url)),
        gpu: fileURLToPath(new URL('gpu.html', import.meta.url)),
      },
    },
  },
  // Not the app's service worker and manifest: the bench's pages are not the app.
  plugins: pagePlugins,
  worker: appConfig.worker,
  preview: { headers: appConfig.preview?.headers },
});

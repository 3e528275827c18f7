import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { defineConfig, type Plugin, type PluginOption } from 'vite';
import react from '@vitejs/plugin-react';
import { VitePWA } from 'vite-plugin-pwa';
import { appHeaders, runServerOrigins } from './workers/offline/headers.ts';

/** A package's version, from its package.json (onnxruntime-web's `exports` do not list it). */
const versionOf = (packageJson: string): string =>
  (JSON.parse(readFileSync(new URL(packageJson, import.meta.url), 'utf8')) as { version: string })
    .version;

/**
 * What a run's fingerprint calls this build: its commit, with `-dirty` and
 * the build time when the tree had uncommitted changes (two such builds
 * differ), or the build time alone outside a git checkout.
 */
function buildId(): string {
  const at = new Date().toISOString();
  const git = (...args: string[]) =>
    execFileSync('git', args, { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  try {
    const commit = git('rev-parse', '--short=12', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no') === ''
      ? commit
      : `${commit}-dirty ${at}`;
  } catch {
    return `built ${at}`;
  }
}

// Multi-threaded WASM (onnxruntime-web with numThreads > 1) needs
// SharedArrayBuffer, which browsers only give to cross-origin isolated pages.
// Training loops run onnxruntime with threads in the model worker
// (modelWorkerThreads in workers/engine/ort-runtime.ts); the engine worker
// keeps one thread for the rest (WASM_THREADS says why). The servers
// send the same headers the service worker adds on static hosting
// (workers/offline/headers.ts): isolation and the Content-Security-Policy.

/** Run servers the page may reach beyond loopback (README, "Distributed sweeps"). */
const runServers = runServerOrigins(process.env.FLOWBENCH_RUN_SERVERS);

/** The dev server's script nonce: a fresh one each time the server starts. */
const devNonce = randomBytes(16).toString('base64');

/**
 * The service worker and the web app manifest. vite-plugin-pwa (Workbox
 * underneath) writes the precache list of the built files into our own
 * worker (workers/offline/service-worker.ts; the injectManifest strategy, as
 * that worker also sets headers) and the manifest next to index.html.
 * Registration is the app's own (src/ui/offline), so that an update waits for
 * the person's word; in the dev server there is no service worker at all.
 */
const offline = VitePWA({
  strategies: 'injectManifest',
  srcDir: 'workers/offline',
  filename: 'service-worker.ts',
  injectRegister: false,
  registerType: 'prompt',
  devOptions: { enabled: false },
  injectManifest: {
    // A classic script: no module syntax left after bundling, and every browser runs it.
    rollupFormat: 'iife',
    globPatterns: ['**/*.{html,js,css,svg,wasm,zip,webmanifest}'],
    // onnxruntime's .wasm files (14 MB for WASM, 27 MB for WebGPU) must be kept for the app to
    // train offline; Workbox leaves out any file over 2 MiB unless told otherwise.
    maximumFileSizeToCacheInBytes: 32 * 1024 * 1024,
  },
  manifest: {
    name: 'Flowbench',
    short_name: 'Flowbench',
    description:
      "Draw machine-learning flows in the browser and run them on the machine's own GPU.",
    start_url: '.',
    scope: '.',
    display: 'standalone',
    background_color: '#ffffff',
    theme_color: '#1f4e79',
    icons: [{ src: 'favicon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' }],
  },
});

/**
 * The dev server's one inline script (React's hot-reload preamble) carries
 * the nonce its policy allows; a build has no inline script to allow.
 */
const devScriptNonce: Plugin = {
  name: 'flowbench-dev-script-nonce',
  apply: 'serve',
  config: () => ({ html: { cspNonce: devNonce } }),
};

/**
 * In the dev server, the service worker's address answers with one that
 * removes itself. A worker left on this origin by a build served here earlier
 * would otherwise keep answering with that build's files, and the dev
 * server's own page (whose code unregisters it) would never load; the browser
 * checks the worker's script on each navigation, gets this one, and it
 * unregisters and reloads every page it controlled.
 */
const retireServiceWorkerInDev: Plugin = {
  name: 'flowbench-retire-service-worker-in-dev',
  apply: 'serve',
  configureServer(server) {
    server.middlewares.use('/service-worker.js', (_request, response) => {
      response.setHeader('Content-Type', 'text/javascript');
      response.setHeader('Cache-Control', 'no-store');
      response.end(
        [
          'self.addEventListener("install", () => self.skipWaiting());',
          'self.addEventListener("activate", (event) => event.waitUntil(',
          '  self.registration.unregister()',
          '    .then(() => self.clients.matchAll({ type: "window" }))',
          '    .then((pages) => Promise.all(pages.map((page) => page.navigate(page.url))))));',
        ].join('\n'),
      );
    });
  },
};

/** The plugins every page of this repository is built with (the bench's pages too), the app's own offline layer aside. */
export const pagePlugins: PluginOption[] = [react(), devScriptNonce];

export default defineConfig({
  plugins: [...pagePlugins, offline, retireServiceWorkerInDev],
  // Read by the engine worker for runs' fingerprints (workers/engine/fingerprint.ts).
  define: {
    __FLOWBENCH_VERSION__: JSON.stringify(versionOf('./package.json')),
    __FLOWBENCH_BUILD__: JSON.stringify(buildId()),
    // For the service worker's headers (workers/offline/service-worker.ts).
    __FLOWBENCH_RUN_SERVERS__: JSON.stringify(runServers.join(' ')),
    __FLOWBENCH_ORT_VERSION__: JSON.stringify(
      versionOf('./node_modules/onnxruntime-web/package.json'),
    ),
  },
  server: { headers: appHeaders('dev', devNonce, runServers) },
  preview: { headers: appHeaders('app', undefined, runServers) },
  worker: { format: 'es' },
  optimizeDeps: {
    // onnxruntime-web finds its .wasm next to its own module; pre-bundling moves it.
    exclude: ['onnxruntime-web'],
    include: ['protobufjs/minimal', 'uplot', 'dexie', 'zod'],
  },
  build: { target: 'es2022', chunkSizeWarningLimit: 1024 },
});

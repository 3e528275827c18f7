import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

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
// The engine runs onnxruntime on one thread for now (WASM_THREADS in
// workers/engine/ort-runtime.ts says why); the page stays isolated so that
// more threads are a one-line change when they are safe again.
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  plugins: [react()],
  // Read by the engine worker for runs' fingerprints (workers/engine/fingerprint.ts).
  define: {
    __FLOWBENCH_VERSION__: JSON.stringify(versionOf('./package.json')),
    __FLOWBENCH_BUILD__: JSON.stringify(buildId()),
    __FLOWBENCH_ORT_VERSION__: JSON.stringify(
      versionOf('./node_modules/onnxruntime-web/package.json'),
    ),
  },
  server: { headers: isolation },
  preview: { headers: isolation },
  worker: { format: 'es' },
  optimizeDeps: {
    // onnxruntime-web finds its .wasm next to its own module; pre-bundling moves it.
    exclude: ['onnxruntime-web'],
    include: ['protobufjs/minimal', 'uplot', 'dexie', 'zod'],
  },
  build: { target: 'es2022', chunkSizeWarningLimit: 1024 },
});

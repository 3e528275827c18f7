import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

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

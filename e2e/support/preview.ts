/**
 * The built app, served to one Playwright worker: Vite's preview server
 * (vite.config.ts's headers included), started inside the worker process on
 * a port the system hands out. So each worker has a server and an origin of
 * its own, two runs of the suite never meet on a port, and no server outlives
 * the worker that started it: there is nothing to find and stop afterwards.
 * The trade-off: a worker pays the server's start (well under a second) once.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { preview, type Plugin } from 'vite';

/** A running preview server and where it answers. */
export interface PreviewServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Vite's preview gzips every response, onnxruntime's 14–27 MB .wasm files
 * included, afresh for each test's fresh browser context: about 0.6 s of CPU
 * per run of a model, 2 s on WebGPU, on a machine the browser needs. Over
 * loopback it buys nothing, so the server is told the browser takes no
 * encoding; the bytes the page gets are the same.
 */
const uncompressed: Plugin = {
  name: 'e2e-uncompressed',
  configurePreviewServer(server) {
    // Runs before Vite's own middlewares, its compression among them.
    server.middlewares.use((request, _response, next) => {
      delete request.headers['accept-encoding'];
      next();
    });
  },
};

/**
 * Serve `outDir` (the build `npm test` makes; E2E_DIST names another) on
 * 127.0.0.1 at a free port.
 */
export async function startPreview(
  outDir = process.env.E2E_DIST ?? 'dist',
): Promise<PreviewServer> {
  if (!existsSync(path.join(outDir, 'index.html')))
    throw new Error(
      `No build in ${outDir}/: the end-to-end tests run against the production build. Run \`npm run build\` first (\`npm test\` does).`,
    );
  const server = await preview({
    logLevel: 'warn',
    build: { outDir },
    plugins: [uncompressed],
    // Port 0: the system picks one no one holds. Vite's single-server lock lives in its command line, not here.
    preview: { host: '127.0.0.1', port: 0, strictPort: true, open: false },
  });
  const url = server.resolvedUrls?.local[0];
  if (!url) {
    await server.close();
    throw new Error('the preview server started but reports no local address');
  }
  return { url: url.replace(/\/$/, ''), close: () => server.close() };
}

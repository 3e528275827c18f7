/**
 * The build served as the plainest static host does: each file with its
 * content type and nothing else, no COOP/COEP, no Content-Security-Policy.
 * What such a host cannot send, the app's service worker must add.
 */
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { PreviewServer } from './preview';

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.zip': 'application/zip',
};

/** A bare static host, which can also pretend a new version was deployed. */
export interface StaticServer extends PreviewServer {
  /** From now on the service worker's script differs by a byte: a new version of the app. */
  deployNewVersion(): void;
}

/** Serve `outDir` (the build; E2E_DIST names another) on 127.0.0.1 at a free port, headers bare. */
export async function startStaticServer(
  outDir = process.env.E2E_DIST ?? 'dist',
): Promise<StaticServer> {
  const root = path.resolve(outDir);
  let version = 0;
  const server = createServer((request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://host').pathname);
    let file = path.join(root, pathname);
    if (!file.startsWith(root)) file = root;
    if (existsSync(file) && statSync(file).isDirectory()) file = path.join(file, 'index.html');
    if (!existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, {
      'Content-Type': types[path.extname(file)] ?? 'application/octet-stream',
    });
    if (version > 0 && path.basename(file) === 'service-worker.js')
      response.end(`${readFileSync(file, 'utf8')}\n// version ${String(version)}\n`);
    else createReadStream(file).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
    deployNewVersion: () => {
      version += 1;
    },
  };
}

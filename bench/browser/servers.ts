/**
 * The servers the browser rows run against: the app's production build
 * (`dist/`, rebuilt only when a source is newer than it) and the bench's own
 * page, each behind `vite preview` on a free port with the cross-origin
 * isolation headers that `vite.config.ts` sets.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { build, preview, type PreviewServer } from 'vite';

export const repoRoot = path.resolve(import.meta.dirname, '..', '..');
const appConfig = path.join(repoRoot, 'vite.config.ts');
const benchPageConfig = path.join(repoRoot, 'bench', 'web', 'vite.config.ts');

/** What the app build reads: if any of it is newer than `dist/index.html`, rebuild. */
const appInputs = [
  'src',
  'workers',
  'public',
  'index.html',
  'vite.config.ts',
  'package.json',
  'package-lock.json',
  'tsconfig.app.json',
  'tsconfig.worker.json',
  'tsconfig.base.json',
];

function newestMtime(file: string): number {
  if (!existsSync(file)) return 0;
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(file))
    newest = Math.max(newest, newestMtime(path.join(file, entry)));
  return newest;
}

/** Build the app into `dist/` unless it is already newer than every input. Returns whether it built. */
export async function ensureAppBuilt(log: (line: string) => void): Promise<boolean> {
  const built = path.join(repoRoot, 'dist', 'index.html');
  const builtAt = existsSync(built) ? statSync(built).mtimeMs : 0;
  const sourcesAt = Math.max(...appInputs.map((f) => newestMtime(path.join(repoRoot, f))));
  if (builtAt > sourcesAt) {
    log('app: dist/ is up to date');
    return false;
  }
  log('app: building dist/ (vite build)…');
  await build({ configFile: appConfig, root: repoRoot, logLevel: 'warn' });
  return true;
}

let benchPageBuilt: Promise<void> | undefined;

/**
 * Build the bench pages (metric, chart and canvas pages are one build),
 * once per bench run: each suite asks for it, the first one builds it.
 */
export function buildBenchPage(log: (line: string) => void): Promise<void> {
  if (benchPageBuilt) return benchPageBuilt;
  log('bench page: building…');
  return (benchPageBuilt = build({ configFile: benchPageConfig, logLevel: 'warn' }).then(
    () => undefined,
  ));
}

/** A port nobody listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Served {
  url: string;
  close: () => Promise<void>;
}

async function serve(configFile: string, root?: string): Promise<Served> {
  const port = await freePort();
  const server: PreviewServer = await preview({
    configFile,
    ...(root !== undefined && { root }),
    logLevel: 'warn',
    preview: { port, strictPort: true, host: '127.0.0.1', open: false },
  });
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => server.close(),
  };
}

export const serveApp = () => serve(appConfig, repoRoot);
export const serveBenchPage = () => serve(benchPageConfig);

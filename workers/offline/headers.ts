/**
 * The headers the app is served with, wherever it is served from: the
 * preview and dev servers send them (vite.config.ts), and the service worker
 * adds them to every response it answers with (service-worker.ts), so a
 * static host that sets no headers at all still gets a cross-origin isolated
 * page under the same Content-Security-Policy. One list, read by both, so the
 * two cannot drift apart. The trade-off: the first visit to such a host is
 * neither isolated nor under the policy (nothing is there yet to add them);
 * every later one is.
 */

/**
 * Cross-origin isolation: SharedArrayBuffer, hence onnxruntime's WASM
 * threads, is only given to pages that opt in with both of these.
 */
export const isolationHeaders: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/**
 * Where the page may reach a run server (`flowbench serve`, which the runs
 * panel's Connect lists and follows): loopback on any port, where the server
 * listens by default and where an SSH tunnel (`ssh -L 8737:127.0.0.1:8737
 * host`) brings one from another machine. Nothing else by default: a page
 * that may fetch from anywhere could send what it holds anywhere.
 */
export const loopbackRunServers: readonly string[] = ['http://127.0.0.1:*', 'http://localhost:*'];

/**
 * The run servers a build allows beyond loopback, from the
 * `FLOWBENCH_RUN_SERVERS` it is built with (origins, separated by spaces or
 * commas: `https://runs.example.org`). Anything that is not an origin is
 * refused, so a typo fails the build instead of silently allowing nothing.
 */
export function runServerOrigins(configured: string | undefined): string[] {
  const origins = (configured ?? '').split(/[\s,]+/).filter(Boolean);
  for (const origin of origins)
    if (!/^https?:\/\/[a-z0-9.-]+(:(\d+|\*))?$/i.test(origin))
      throw new Error(
        `FLOWBENCH_RUN_SERVERS: '${origin}' is not an origin; expected e.g. https://runs.example.org or http://10.0.0.5:8737`,
      );
  return origins;
}

/** Where the policy is served: the dev server's hot reload needs a little more. */
export type PolicyMode = 'app' | 'dev';

/**
 * The app's Content-Security-Policy. Scripts and workers only from the app's
 * own origin, no inline script and no `eval`; `'wasm-unsafe-eval'` lets
 * onnxruntime compile its WebAssembly. Styles may be inline (charts and the
 * canvas position their elements with style attributes), images may be
 * `blob:`/`data:` (images a flow reads and the charts' exports), and the
 * page may read `blob:`/`data:` URLs (the build inlines the small example
 * files, the iris table and the ONNX model, as `data:` URLs), and it may
 * reach run servers on loopback and at `runServers`. In `dev`
 * the hot-reload socket is allowed too, and the one inline script the React
 * plugin injects, by the nonce Vite stamps on it.
 */
export function contentSecurityPolicy(
  mode: PolicyMode,
  nonce?: string,
  runServers: readonly string[] = [],
): string {
  const scripts = ["'self'", "'wasm-unsafe-eval'"];
  const connect = ["'self'", 'blob:', 'data:', ...loopbackRunServers, ...runServers];
  if (mode === 'dev') {
    if (nonce) scripts.push(`'nonce-${nonce}'`);
    connect.push('ws:', 'wss:');
  }
  return [
    "default-src 'self'",
    `script-src ${scripts.join(' ')}`,
    "worker-src 'self'",
    `connect-src ${connect.join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}

/** Every header the app is served with, in `mode`. */
export function appHeaders(
  mode: PolicyMode,
  nonce?: string,
  runServers: readonly string[] = [],
): Record<string, string> {
  return {
    ...isolationHeaders,
    'Content-Security-Policy': contentSecurityPolicy(mode, nonce, runServers),
  };
}

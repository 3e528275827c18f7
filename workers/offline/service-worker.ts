/**
 * The service worker: it keeps the whole built app (pages, scripts, styles,
 * the examples' data and onnxruntime's .wasm files) in the Cache Storage on
 * the first visit, then answers every request for it from there, so the app
 * opens, trains and exports with the network off. Workbox does the
 * precaching (a versioned list written into this file at build time; stale
 * entries dropped on activation), which a hand-written cache would get wrong
 * on some update path.
 *
 * Every response it serves carries the app's headers (headers.ts): so a
 * static host that sends none still yields a cross-origin isolated page
 * under the app's Content-Security-Policy.
 *
 * A new version installs beside the running one and waits: it takes over
 * only when the page asks (`SKIP_WAITING`), which the page does on the
 * person's word (src/ui/offline), never on its own in the middle of a run.
 */
import {
  addPlugins,
  cleanupOutdatedCaches,
  createHandlerBoundToURL,
  precacheAndRoute,
} from 'workbox-precaching';
import { clientsClaim } from 'workbox-core';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { appHeaders } from './headers';

declare let self: ServiceWorkerGlobalScope & {
  /** The precache list; the build writes it in here. */
  __WB_MANIFEST: (string | { url: string; revision: string | null })[];
};

/** What the page posts to let a waiting version take over (workbox-window's `messageSkipWaiting`). */
const SKIP_WAITING = 'SKIP_WAITING';

/** The run servers this build allows beyond loopback (vite.config.ts, from FLOWBENCH_RUN_SERVERS). */
declare const __FLOWBENCH_RUN_SERVERS__: string | undefined;

const headers = appHeaders(
  'app',
  undefined,
  typeof __FLOWBENCH_RUN_SERVERS__ === 'string'
    ? __FLOWBENCH_RUN_SERVERS__.split(' ').filter(Boolean)
    : [],
);

/** `response` with the app's headers set; its body is passed along, not read. */
function withAppHeaders(response: Response): Response {
  // An opaque or error response has no headers to set (and none to trust).
  if (response.type === 'opaque' || response.type === 'error') return response;
  const merged = new Headers(response.headers);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers: merged,
  });
}

// The first version takes the open page at once (no older one to displace), so the visit that
// installed it already works offline; a later version waits for SKIP_WAITING, below.
clientsClaim();
addPlugins([{ handlerWillRespond: ({ response }) => Promise.resolve(withAppHeaders(response)) }]);
precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
// Any page of the app opens the app's one page, from the cache.
registerRoute(new NavigationRoute(createHandlerBoundToURL('index.html')));

self.addEventListener('message', (event) => {
  if ((event.data as { type?: unknown } | null)?.type === SKIP_WAITING) void self.skipWaiting();
});

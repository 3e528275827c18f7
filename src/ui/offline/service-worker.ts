/**
 * The page's side of the service worker (workers/offline/service-worker.ts):
 * in a build it registers the worker and notes when a new version of the app
 * is installed and waiting; the new version takes over only when `applyUpdate`
 * is called, which the update notice does on the person's word. In the dev
 * server there is no service worker: any left on this origin by a build served
 * here earlier is removed, so the dev server's own files are what the page gets.
 */
import { useSyncExternalStore } from 'react';
import { Workbox } from 'workbox-window';

/** Whether a new version is installed and waits for the person's word. */
let waiting = false;
let workbox: Workbox | null = null;
const listeners = new Set<() => void>();

function setWaiting(value: boolean): void {
  waiting = value;
  for (const listener of listeners) listener();
}

/** Starts (in a build) or clears away (in the dev server) the app's service worker. Call once. */
export function startServiceWorker(): void {
  if (!('serviceWorker' in navigator)) return;
  if (import.meta.env.DEV) {
    void navigator.serviceWorker
      .getRegistrations()
      .then((registrations) => Promise.all(registrations.map((r) => r.unregister())))
      .catch(() => undefined);
    return;
  }
  workbox = new Workbox(`${import.meta.env.BASE_URL}service-worker.js`, {
    scope: import.meta.env.BASE_URL,
  });
  workbox.addEventListener('waiting', () => setWaiting(true));
  // Without a service worker the app still works, online: nothing to tell the person.
  workbox.register().catch(() => undefined);
}

/**
 * Lets the waiting version take over, then reloads the page into it. The
 * caller makes sure no run is going: a reload would cut it off.
 */
export function applyUpdate(): void {
  if (!workbox || !waiting) return;
  workbox.addEventListener('controlling', () => window.location.reload());
  workbox.messageSkipWaiting();
}

/** Whether a new version of the app waits to be loaded; re-renders when it comes. */
export function useUpdateWaiting(): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => waiting,
  );
}

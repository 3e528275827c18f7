/**
 * What a run owns beyond its nodes' bodies. A live data source outlives the
 * node that opened it (its consumers run after that node has finished and
 * delivered it), yet it must end with the run, whatever way the run ends —
 * ok, failed or cancelled — or its producers would go on working for no one.
 * So a node hands such a resource to its run, and the executor closes them
 * all once every node body has returned. The scope is keyed by the run's
 * signal, which the executor gives every node of one run and no other run.
 */

/** Something a run closes when it ends. `close` must be idempotent and must not throw. */
export interface RunResource {
  close(): void;
}

const scopes = new WeakMap<AbortSignal, Set<RunResource>>();

/** Hand `resource` to the run whose signal is `signal`; it is closed when that run ends. */
export function ownByRun(signal: AbortSignal, resource: RunResource): void {
  let scope = scopes.get(signal);
  if (!scope) {
    scope = new Set();
    scopes.set(signal, scope);
  }
  scope.add(resource);
}

/** Close everything the run owns (the executor calls this once its last node has returned). */
export function closeRunResources(signal: AbortSignal): void {
  const scope = scopes.get(signal);
  scopes.delete(signal);
  for (const resource of scope ?? []) {
    try {
      resource.close();
    } catch {
      // A resource that fails to close must not keep the others open.
    }
  }
}

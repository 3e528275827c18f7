/**
 * Files being stored for file params, so that a run waits for them. Picking
 * a file names it in the flow only once the engine has hashed and stored it
 * (the param holds its digest); a Run pressed meanwhile would run the flow
 * with the file picked before, and say nothing. Run and Run sweep wait here
 * first (`filesKept`), then read the flow.
 */
const pending = new Set<Promise<unknown>>();

/** Track `keeping` (a file param's store-then-set) until it settles; resolves as it does. */
export function keepFile<T>(keeping: Promise<T>): Promise<T> {
  pending.add(keeping);
  const done = () => pending.delete(keeping);
  keeping.then(done, done);
  return keeping;
}

/** Resolves once no file is being kept (a failed keep counts as ended: it alerts on its own). */
export async function filesKept(): Promise<void> {
  while (pending.size > 0) await Promise.allSettled([...pending]);
}

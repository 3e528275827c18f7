/**
 * Runs on one onnxruntime module take turns.
 *
 * onnxruntime-web's `run` takes room on its WASM module's stack for the
 * feeds' and fetches' names and values, awaits (preparing the tensors), then
 * calls into the module and gives the room back. Two runs in flight on one
 * module at once (two nodes' sessions in one engine, a worker's concurrent
 * trials) give their room back out of order, and the later run's names are
 * overwritten: it fails with "input name cannot be empty". So each run on a
 * module waits for the one before it to settle. Trade-off: none on WASM,
 * which runs one session at a time anyway; on WebGPU two sessions' runs no
 * longer overlap on the device.
 */
const tails = new WeakMap<object, Promise<unknown>>();

/** Runs `run` once every run given earlier for `module` has settled; settles as it does. */
export function inTurn<T>(module: object, run: () => Promise<T>): Promise<T> {
  const before = tails.get(module) ?? Promise.resolve();
  const mine = before.then(run);
  tails.set(
    module,
    mine.catch(() => undefined),
  );
  return mine;
}

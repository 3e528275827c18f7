/**
 * Whether `value` is a promise or another thenable. Code that takes a value
 * or a promise of it awaits only a promise: an `await` of a plain value still
 * costs a turn of the microtask queue, once per training step or per batch.
 */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

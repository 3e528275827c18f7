/**
 * The small graph a device loop runs beside its train step (device-loop.ts)
 * to read back many scalars at once: each input's first value, concatenated
 * into one `[n]` output brought back in one download.
 */
import { GraphBuilder } from '../../src/core/onnx/graph';

/** Inputs `in.0` … `in.<n−1>` (float32, any shape) → `values` `[n]`: each one's first value. */
export function firstValuesGraph(n: number): Uint8Array {
  const g = new GraphBuilder(`flowbench_first_values_${n}`);
  const flat = g.constant([-1], 'int64');
  const starts = g.constant([0], 'int64');
  const ends = g.constant([1], 'int64');
  const firsts = Array.from({ length: n }, (_, i) =>
    g.op('Slice', [g.op('Reshape', [g.input(`in.${i}`, 'float32'), flat]), starts, ends]),
  );
  const values = n === 1 ? firsts[0]! : g.op('Concat', firsts, { axis: 0 });
  g.output(values, 'values', 'float32', [n]);
  return g.toModel();
}

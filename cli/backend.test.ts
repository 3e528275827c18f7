/**
 * The command line's `cpu` sessions: onnxruntime-node as `loadOrt` opens
 * them reads and writes denormal floats as zero (backend.ts says why), so a
 * training's decaying optimizer state does not slow every step. onnxruntime
 * sets the calling thread's flag once per process, from the process's first
 * session, so the session runs in a process of its own, as in a `flowbench`
 * process (a test file shares its worker's onnxruntime with the files before it).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/** y = x · 1 over four floats, on a fresh process's first `cpu` session; y's values. */
const script = `
import { GraphBuilder } from './src/core/onnx/graph.ts';
import { loadOrt } from './cli/backend.ts';
const g = new GraphBuilder('times-one');
const x = g.input('x', 'float32', [4]);
const one = g.initializer('one', Float32Array.of(1), [1]);
g.output(g.op('Mul', [x, one]), 'y', 'float32', [4]);
const ort = await loadOrt('cpu');
const session = await ort.InferenceSession.create(g.toModel());
const xs = Float32Array.of(1e-40, -3e-42, 1.1754943508222875e-38, 0.5);
const { y } = await session.run({ x: new ort.Tensor('float32', xs, [4]) });
console.log(JSON.stringify([...y.data].map((v) => (Object.is(v, -0) ? '-0' : v))));
process.exit(0);
`;

describe('the command line on cpu', () => {
  it('reads and writes denormal floats as zero, and every other float as it is', async () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '--eval', script],
      { cwd: root },
    );
    expect(JSON.parse(stdout)).toEqual([0, '-0', Math.fround(1.1754943508222875e-38), 0.5]);
  });
});

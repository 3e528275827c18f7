/**
 * Where a headless run's sessions run: `wasm` is onnxruntime-web's WASM
 * build, the very engine the browser runs (so its series are the browser's);
 * `cpu` is onnxruntime-node's native CPU provider, faster but a different
 * engine (its series agree with WASM's within float tolerance, not bit for
 * bit). Both share onnxruntime's common API, so the engine's runtime
 * (`OrtRuntime`) drives either; for `cpu` every session is opened on the
 * native CPU provider whatever provider the engine names (it only knows the
 * browser's), and the run's record says `cpu`.
 */
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import type * as Ort from 'onnxruntime-web';
import { WASM_THREADS, type OrtModule } from '../workers/engine/ort-loader';

export const cliBackends = ['wasm', 'cpu'] as const;
export type CliBackend = (typeof cliBackends)[number];

/**
 * Threads per session for each of `parallel` lanes of a sweep on `cores`
 * cores: the cores shared out, at least one each, and one core left to the
 * engine's own thread when a single lane would take them all. onnxruntime-
 * node's default, a thread per core in every session, put two lanes' four
 * threads on two cores, each waiting on the others: a `--backend cpu` sweep
 * of 8 trials, two at once, ran in 15.4–22.6 s against 11.1–17.9 s with a
 * thread per lane (four pairs back to back). A lone `flowbench run` is no
 * lane: it takes every core (`loadOrt`). A lone lane keeps to one thread,
 * as the README's sweeps of small models want: a 20,000-step spirals-mlp
 * trial took 3.2–3.4 s on one thread, 3.5–3.6 s on every core spinning and
 * 4.0 s on two asleep (a larger model is given `--threads`).
 */
export function laneThreads(parallel: number, cores: number): number {
  return Math.max(1, Math.min(cores - 1, Math.floor(cores / parallel)));
}

/**
 * onnxruntime for `backend`, loaded once per process; the WASM build always
 * runs on one thread (`WASM_THREADS`). On `cpu`, `threads` is for a process
 * that shares the machine (a sweep's lane, a queue worker, `--threads`):
 * that many threads per session, which wait for work asleep between two
 * runs. Without it the run has the machine: a thread per core that spins
 * between runs, onnxruntime's own defaults. A lone `flowbench run` of the
 * bench's MLP, 3,000 steps in a fresh process on 2 cores, took 1.12 ms a
 * step so, against 1.44 on one thread and 1.27 on two asleep (three runs
 * each), for a third more CPU.
 */
export async function loadOrt(backend: CliBackend, threads?: number): Promise<OrtModule> {
  if (backend === 'wasm') {
    const ort = await import('onnxruntime-web');
    ort.env.logLevel = 'error';
    ort.env.wasm.numThreads = WASM_THREADS;
    return ort;
  }
  const native = await import('onnxruntime-node');
  native.env.logLevel = 'error';
  // The common API's types are the same package's; only the provider list differs.
  // The engine opens every session from bytes, with options (`OrtRuntime.createSession`).
  const alone = threads === undefined;
  const create = (model: Uint8Array, options?: Ort.InferenceSession.SessionOptions) =>
    native.InferenceSession.create(model, {
      ...options,
      executionProviders: ['cpu'],
      intraOpNumThreads: threads ?? availableParallelism(),
      interOpNumThreads: 1,
      extra: {
        session: {
          // Sharing the machine, its threads wait for work asleep, not spinning: between two runs
          // of a training loop another lane's session and engine need those cores.
          intra_op: { allow_spinning: alone ? '1' : '0' },
          inter_op: { allow_spinning: '0' },
          // Denormal floats read and written as zero. Every step over a denormal value is a slow
          // one on the CPU, and a training's optimizer state decays into them: this flag alone
          // took the bench's MLP from 2.78 ms a step to 1.41 over 3,000 steps, before the train
          // step made its state's denormal values zero itself (mlp-optim.ts); it still covers
          // every other value, gradients and activations. A denormal is below 1.2e-38, so
          // nothing a run records moves beyond float rounding, and `cpu` agrees with WASM within
          // a tolerance anyway, not bit for bit. onnxruntime sets the calling thread's flag once
          // per process, from its first session (its own threads take each session's): every
          // session of the command line opens here.
          set_denormal_as_zero: '1',
        },
      },
    });
  return {
    ...(native as unknown as OrtModule),
    InferenceSession: { create } as unknown as OrtModule['InferenceSession'],
  };
}

/** What the run record's engine says a `cpu` run ran on. */
export async function cpuEngineLabel(): Promise<string> {
  const native = await import('onnxruntime-node');
  return `onnxruntime-node ${native.env.versions.node ?? ''} (native CPU)`.replace('  ', ' ');
}

/**
 * Load onnxruntime for `backend` and open (and close) one small session, so
 * that its one-off start (compiling the WASM build, about a second, longer
 * on a busy machine) is paid now and not inside the first run: a queue
 * worker renews its trials' locks on the same thread, and a long pause there
 * looks to the queue like a dead worker.
 */
export async function warmUp(backend: CliBackend): Promise<void> {
  const ort = await loadOrt(backend);
  const model = await readFile(new URL('../src/examples/blobs-sign.onnx', import.meta.url));
  const session = await ort.InferenceSession.create(new Uint8Array(model), {
    executionProviders: ['wasm'],
  });
  await session.release();
}

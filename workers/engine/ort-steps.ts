/**
 * A loop's steps on onnxruntime's own tensors (session-loop.ts's
 * `StepSession`), for the loops a runtime runs beside the engine (the
 * command line's): a step's outputs are fed to the next as onnxruntime
 * returned them, and its loss read from them, with nothing converted
 * between two runs.
 *
 * Idea: the engine's session wrapper (`OrtRuntime`'s run) meets every kind
 * of feed and fetch a node may hand it (GPU buffers, typed constants, a lost
 * device, bytes to count); a loop on the CPU feeds only CPU tensors, and
 * each step went through all of that twice, once in and once out. On the
 * command line's train row (fresh processes, steps 5–405 of the bench's
 * MLP), one after the other: 0.89× a bare onnxruntime-node loop through the
 * wrapper, 0.95× here (0.91–0.98× over later runs). Most of it is in the
 * first few hundred steps, while V8 optimises the hot code on a core
 * onnxruntime's threads also want: 119 ms of compiling there, now 58.
 */
import type * as Ort from 'onnxruntime-common';
import type { StepSession } from '../../src/core/runtime/session-loop';
import { fromOrt } from './device-tensors';
import { inTurn } from './ort-turns';
import type { OrtModule } from './ort-loader';

/**
 * `session`'s steps on `ort`'s CPU tensors; runs take their turn on the
 * module (ort-turns.ts). `writesInto`: the session writes an output into a
 * tensor given for it (onnxruntime-node does; onnxruntime-web's WASM build
 * moves every tensor through its own heap anyway, so its loops are left as
 * they are).
 */
export function ortSteps(
  ort: OrtModule,
  session: Ort.InferenceSession,
  writesInto = false,
): StepSession<Ort.Tensor> {
  // Every output is fetched: those given a tensor into it, the rest as onnxruntime makes them.
  const fetches: Record<string, Ort.Tensor | null> = {};
  return {
    feed: (tensor) => new ort.Tensor(tensor.type, tensor.data, tensor.dims),
    run(feeds, into) {
      if (into === undefined) return inTurn(ort, () => session.run(feeds));
      return inTurn(ort, () => {
        // Filled as the run starts: a run waiting for its turn sees its own `into`.
        for (const name of session.outputNames) fetches[name] = into[name] ?? null;
        return session.run(feeds, fetches);
      });
    },
    writesInto,
    first: (value) => (value.data as ArrayLike<number>)[0] ?? Number.NaN,
    tensor: (value) => Promise.resolve(fromOrt(value)),
    // CPU memory, collected with the tensor.
    release: () => undefined,
  };
}

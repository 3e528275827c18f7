/**
 * `eval.world_model`: multi-step prediction error of a world model on
 * held-out episodes. From each episode's first `context_length` true steps
 * the model rolls forward `horizon` steps on the true actions, feeding on
 * its own predictions — so errors compound as they would in planning, which
 * one-step training loss cannot show. The error at each horizon streams out;
 * the mean over horizons, and its ratio to a "nothing moves" baseline
 * (persistence: the last observed state, held), are the results.
 *
 * Held-out episodes come straight from the simulator with a seed of their
 * own, never from the live source, so they are data the model never saw and
 * the evaluation spends no one's sample budget.
 */
import { backendParam } from './backend-param';
import { defineNodeKind } from '../catalog/kind';
import { deriveSeed } from '../data/seed';
import { rollout } from '../data/simulator';
import { float32, hostOutput } from '../runtime/tensor-runtime';
import { createDynamics, expectEnvironment } from '../live/environment';
import { expectWorldModel, worldModelInputSize, writeWorldModelInput } from '../live/world-model';
import { buildMlpInference } from '../onnx/mlp';
import { createRandom } from '../random';
import { FlowbenchError } from '../errors';

/** Mixed into the seed so held-out episodes never repeat a producer's. */
const HELD_OUT_STREAM = 0x65766c;

export const evalWorldModel = defineNodeKind({
  kind: 'eval.world_model',
  title: 'Evaluate world model',
  category: 'eval',
  description:
    'Multi-step prediction error of a world model: from a few true steps it predicts `horizon` steps ahead on its own predictions, on held-out episodes of the environment. Streams the error at each horizon.',
  params: {
    episodes: {
      type: 'int',
      default: 32,
      min: 1,
      max: 65_536,
      description: 'Held-out episodes to roll out.',
    },
    horizon: {
      type: 'int',
      default: 16,
      min: 1,
      max: 10_000,
      description: 'Steps predicted ahead on the model’s own predictions.',
    },
    seed: { type: 'int', default: 0, min: 0, description: 'Seed of the held-out episodes.' },
    backend: backendParam('Where inference runs'),
  },
  inputs: [
    { name: 'model', type: 'model', description: 'A trained world model.' },
    { name: 'environment', type: 'environment', description: 'The environment it models.' },
  ],
  outputs: [
    {
      name: 'horizon_error',
      type: 'number',
      stream: true,
      description: 'Mean squared error of the prediction h steps ahead, for h = 1 … horizon.',
    },
    {
      name: 'prediction_error',
      type: 'number',
      description: 'Mean squared error over every horizon.',
    },
    {
      name: 'persistence_ratio',
      type: 'number',
      description: 'The error over that of holding the last observed state (below 1 is better).',
    },
  ],
  async execute(ctx) {
    const { episodes: count, horizon, seed, backend } = ctx.params;
    const model = expectWorldModel(ctx.inputs.model, 'model');
    const environment = expectEnvironment(ctx.inputs.environment, 'environment');
    const shape = model.worldModel;
    if (
      shape.simulator !== environment.simulator ||
      shape.observationSize !== environment.observationSize ||
      shape.actionSize !== environment.actionSize
    )
      throw new FlowbenchError('node-input', {
        problem: `input 'model' models ${shape.simulator}, but input 'environment' is ${environment.simulator}`,
      });
    const { contextLength: c, observationSize: O } = shape;
    const episodes = await rollout(createDynamics(environment.simulator), {
      numEnvs: count,
      episodeLength: c + horizon - 1,
      random: createRandom(deriveSeed(seed, HELD_OUT_STREAM)),
      signal: ctx.signal,
    });
    const inference = buildMlpInference(
      {
        inputSize: model.inputSize,
        hidden: model.hidden,
        outputSize: model.outputSize,
        activation: model.activation,
      },
      model.weights,
    );
    const session = await ctx.runtime.createSession(inference.model, backend);
    // Each episode's observations as the model sees them: true in the context, predicted after.
    const seen = episodes.map((e) => {
      const history = new Float32Array((c + horizon) * O);
      history.set(e.observations.subarray(0, c * O));
      return history;
    });
    const inputSize = worldModelInputSize(shape);
    const x = new Float32Array(count * inputSize);
    let errorSum = 0;
    let persistenceSum = 0;
    let horizons = 0;
    try {
      for (let t = c; t < c + horizon; t++) {
        // Episodes that terminated before step t have nothing left to predict.
        const active = episodes.flatMap((e, i) => (e.length >= t ? [i] : []));
        if (active.length === 0) break;
        active.forEach((i, row) =>
          writeWorldModelInput(shape, seen[i]!, episodes[i]!.actions, t, x, row * inputSize),
        );
        const out = await session.run({
          [inference.inputs.x]: float32(x.subarray(0, active.length * inputSize), [
            active.length,
            inputSize,
          ]),
        });
        const delta = hostOutput(out, inference.outputs.logits).data;
        let error = 0;
        let persistence = 0;
        active.forEach((i, row) => {
          const truth = episodes[i]!.observations;
          const history = seen[i]!;
          for (let d = 0; d < O; d++) {
            const predicted = history[(t - 1) * O + d]! + delta[row * O + d]!;
            history[t * O + d] = predicted;
            error += (predicted - truth[t * O + d]!) ** 2 / O;
            persistence += (truth[(c - 1) * O + d]! - truth[t * O + d]!) ** 2 / O;
          }
        });
        ctx.emit('horizon_error', error / active.length);
        errorSum += error / active.length;
        persistenceSum += persistence / active.length;
        horizons++;
        ctx.progress(t - c + 1, horizon);
        await ctx.checkpoint();
      }
    } finally {
      await session.release();
    }
    const error = errorSum / horizons;
    ctx.log(
      `${count} held-out episodes of ${environment.simulator}: ${horizons} steps ahead from ${c} true steps`,
    );
    ctx.emit('prediction_error', error);
    ctx.emit('persistence_ratio', persistenceSum > 0 ? errorSum / persistenceSum : Number.NaN);
  },
});

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
 *
 * The rollout is a program — a loop of one unit per horizon step over the
 * resident inference model, as `eval.accuracy` runs its step — so the device
 * pool admits it, a cancel stops it at the next step, and a parity check can
 * run it twice: every unit's state lives in the loop it starts.
 */
import { backendParam } from './backend-param';
import { defineNodeKind } from '../catalog/kind';
import { deriveSeed } from '../data/seed';
import { rollout } from '../data/simulator';
import type { EpisodeData } from '../data/episode';
import { float32, hostOutput } from '../runtime/tensor-runtime';
import { createDynamics, expectEnvironment } from '../live/environment';
import {
  expectWorldModel,
  worldModelInputSize,
  writeWorldModelInput,
  type WorldModelShape,
} from '../live/world-model';
import { estimateMemory } from '../onnx/memory';
import { buildMlpInference, type MlpInference } from '../onnx/mlp';
import {
  loop,
  loopProgress,
  mlpInferenceModel,
  nodeRequest,
  type LoopStep,
  type ModelId,
} from '../programs';
import { createRandom } from '../random';
import { FlowbenchError } from '../errors';
import { expectMlp } from '../catalog/values';

/** Name of the rollout loop in the program. */
const LOOP = 'rollout';

/** Mixed into the seed so held-out episodes never repeat a producer's. */
const HELD_OUT_STREAM = 0x65766c;

export const evalWorldModel = defineNodeKind({
  kind: 'eval.world_model',
  version: 1,
  cache: 'backend',
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
    const model = expectMlp(expectWorldModel(ctx.inputs.model, 'model'), 'model');
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
    const { contextLength: c } = shape;
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
    const resident = mlpInferenceModel(ctx.node, inference, backend);
    const id = resident.id;
    const predict = rolloutLoop({ model: id, inference, shape, episodes, horizon });
    const report = await ctx.programs.run({
      node: ctx.node,
      backend,
      models: [resident],
      requests: [nodeRequest(ctx.node, predict, ctx.signal)],
      onTick: loopProgress(LOOP, (done, total, perSecond) =>
        ctx.progress(done, total, perSecond ?? undefined),
      ),
      onEmit(_request, metric, value) {
        if (metric === 'horizon_error') ctx.emit('horizon_error', value);
      },
    });
    const result = report.results[0]!;
    const sums = result.outputs;
    const [errorSum, persistenceSum, horizons] = ['error', 'persistence', 'horizons'].map(
      (name) => sums[`${LOOP}.${name}`],
    );
    if (
      result.status !== 'ok' ||
      typeof errorSum !== 'number' ||
      typeof persistenceSum !== 'number' ||
      typeof horizons !== 'number'
    )
      throw new Error(result.error?.message ?? `the evaluation ended ${result.status}`);
    const error = errorSum / horizons;
    ctx.log(
      `${count} held-out episodes of ${environment.simulator}: ${horizons} steps ahead from ${c} true steps`,
    );
    ctx.emit('prediction_error', error);
    ctx.emit('persistence_ratio', persistenceSum > 0 ? errorSum / persistenceSum : Number.NaN);
  },
});

interface RolloutLoopOptions {
  readonly model: ModelId;
  /** The world model's inference graph, its weights baked in. */
  readonly inference: MlpInference;
  readonly shape: WorldModelShape;
  readonly episodes: readonly EpisodeData[];
  readonly horizon: number;
}

/**
 * The rollout as a loop: unit k predicts step `contextLength + k` of every
 * episode still going from what the model saw (true steps in the context,
 * its own predictions after), emits that horizon's error, and ends the loop
 * once every episode has ended. The sums go out at the end
 * (`rollout.error`, `rollout.persistence`, `rollout.horizons`).
 */
function rolloutLoop(o: RolloutLoopOptions): LoopStep {
  const { contextLength: c, observationSize: O } = o.shape;
  const count = o.episodes.length;
  const inputSize = worldModelInputSize(o.shape);
  return loop({
    name: LOOP,
    models: [o.model],
    units: o.horizon,
    peakBytes: estimateMemory(o.inference.graph, { dims: { batch: count } }).peakBytes,
    start(sctx) {
      const session = sctx.session(o.model);
      // Each episode's observations as the model sees them: true in the context, predicted after.
      const seen = o.episodes.map((e) => {
        const history = new Float32Array((c + o.horizon) * O);
        history.set(e.observations.subarray(0, c * O));
        return history;
      });
      const x = new Float32Array(count * inputSize);
      let errorSum = 0;
      let persistenceSum = 0;
      let horizons = 0;
      let ended = false;
      return {
        done: () => ended,
        async unit(k) {
          const t = c + k;
          // Episodes that terminated before step t have nothing left to predict.
          const active = o.episodes.flatMap((e, i) => (e.length >= t ? [i] : []));
          if (active.length === 0) {
            ended = true;
            return;
          }
          active.forEach((i, row) =>
            writeWorldModelInput(o.shape, seen[i]!, o.episodes[i]!.actions, t, x, row * inputSize),
          );
          const out = await session.run({
            [o.inference.inputs.x]: float32(x.subarray(0, active.length * inputSize), [
              active.length,
              inputSize,
            ]),
          });
          const delta = hostOutput(out, o.inference.outputs.logits).data;
          let error = 0;
          let persistence = 0;
          active.forEach((i, row) => {
            const truth = o.episodes[i]!.observations;
            const history = seen[i]!;
            for (let d = 0; d < O; d++) {
              const predicted = history[(t - 1) * O + d]! + delta[row * O + d]!;
              history[t * O + d] = predicted;
              error += (predicted - truth[t * O + d]!) ** 2 / O;
              persistence += (truth[(c - 1) * O + d]! - truth[t * O + d]!) ** 2 / O;
            }
          });
          sctx.emit('horizon_error', error / active.length);
          errorSum += error / active.length;
          persistenceSum += persistence / active.length;
          horizons++;
        },
        end() {
          sctx.output(`${LOOP}.error`, errorSum);
          sctx.output(`${LOOP}.persistence`, persistenceSum);
          sctx.output(`${LOOP}.horizons`, horizons);
        },
      };
    },
  });
}

/** The pieces together: pendulum producers → data engine (planned) → a consumer loop. */
import { describe, expect, it } from 'vitest';
import { createRandom } from '../random';
import { DataEngine } from './data-engine';
import { FakeClock } from './fake-clock';
import { FlowController } from './flow-controller';
import { createPendulum } from './pendulum';
import { createSimulatorProducers } from './simulator-producer';
import { TelemetryLog } from './telemetry';
import { engineConfig, planFor } from './testing';

async function train(seed: number) {
  const clock = new FakeClock();
  const telemetry = new TelemetryLog();
  const config = engineConfig({
    buffer_size: 8,
    num_envs: 4,
    episode_sample_budget: 4,
    episode_sample_hard_limit: 6,
    max_generated_episodes: 24,
    plan: planFor({ batch_size: 8, refill_remaining_chunks: 16, num_envs: 4 }),
  });
  const producers = createSimulatorProducers(4, {
    dynamics: createPendulum(),
    seed,
    episodeLength: 40,
  });
  const engine = new DataEngine({ config, producers, clock, telemetry });
  const controller = new FlowController({ engine, clock, telemetry, random: createRandom(seed) });
  const window = { contextLength: 8, predictionLength: 4 };
  const provenance: [number, number, number][] = [];
  while (await clock.drive(controller.prepareBatch())) {
    for (let i = 0; i < config.plan!.batch_size; i++) {
      const chunk = await controller.sampleContext(window);
      expect(chunk.observations).toHaveLength(12 * 3);
      expect(Array.from(chunk.actionMask).every((m) => m === 1)).toBe(true);
      const { episode, generation, offset } = chunk.provenance;
      provenance.push([episode, generation, offset]);
    }
  }
  engine.close();
  return { provenance, engine, telemetry };
}

describe('pendulum data flow', () => {
  it('trains through every generation under the ceiling, within budgets, reproducibly', async () => {
    const { provenance, engine, telemetry } = await train(11);
    expect(engine.stats()).toMatchObject({ generationsReady: 3, producedEpisodes: 24 });
    // 3 generations × 8 episodes × 4 chunks; the last generation may go on to the hard limit of 6.
    expect(provenance.length).toBeGreaterThanOrEqual(96);
    expect(provenance.length % 8).toBe(0);
    const perEpisode = new Map<number, number>();
    for (const [episode] of provenance) perEpisode.set(episode, (perEpisode.get(episode) ?? 0) + 1);
    expect(Math.max(...perEpisode.values())).toBeLessThanOrEqual(6);
    expect(new Set(provenance.map(([, g]) => g))).toEqual(new Set([1, 2, 3]));
    // It stopped only because what is left cannot fund a batch of 8.
    expect(engine.cache.finalSupply).toBe(true);
    expect(engine.cache.unlockedRemainingChunks()).toBeLessThan(8);
    expect(telemetry.events.filter((e) => e.type === 'generation_ready')).toHaveLength(3);
    expect((await train(11)).provenance).toEqual(provenance);
    expect((await train(12)).provenance).not.toEqual(provenance);
  });
});

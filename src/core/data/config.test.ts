import { describe, expect, it } from 'vitest';
import { checkDataEngineConfig, validateControllerUse, validateDataEngineConfig } from './config';
import { DataEngine } from './data-engine';
import { FakeClock } from './fake-clock';
import { FlowController } from './flow-controller';
import { engineConfig, planFor } from './testing';

type Config = Parameters<typeof validateDataEngineConfig>[0];
const paths = (config: Config) => validateDataEngineConfig(config).map((issue) => issue.path);
/** Each finding as the person reads it: `path: message`. */
const findings = (config: Config) =>
  validateDataEngineConfig(config).map((issue) => `${issue.path}: ${issue.message}`);

describe('data engine config', () => {
  it('accepts the fixture config, with and without a plan and a ceiling', () => {
    expect(validateDataEngineConfig(engineConfig())).toEqual([]);
    expect(
      validateDataEngineConfig(engineConfig({ plan: planFor(), max_generated_episodes: 8 })),
    ).toEqual([]);
  });

  it.each(['data_wait_timeout', 'generation_timeout', 'poll_interval'] as const)(
    'requires %s to be finite and positive',
    (field) => {
      for (const value of [0, -1, Number.NaN, Infinity]) {
        const config = engineConfig();
        config.controller = { ...config.controller, [field]: value };
        const found = findings(config);
        expect(found).toHaveLength(1);
        expect(found[0]).toMatch(new RegExp(`^controller\\.${field}: .*finite and positive`));
      }
    },
  );

  it('requires max_generated_episodes to be a positive integer not smaller than buffer_size', () => {
    for (const ceiling of [0, -4, 4.5])
      expect(paths(engineConfig({ max_generated_episodes: ceiling }))).toEqual([
        'max_generated_episodes',
      ]);
    expect(findings(engineConfig({ max_generated_episodes: 3 }))).toEqual([
      'max_generated_episodes: 3 is smaller than buffer_size (4): not even one cache could be produced',
    ]);
    expect(paths(engineConfig({ max_generated_episodes: 4 }))).toEqual([]);
  });

  it('requires num_envs to divide buffer_size only under a plan or a production limit', () => {
    const uneven = { buffer_size: 5, num_envs: 2 };
    expect(paths(engineConfig(uneven))).toEqual([]);
    expect(paths(engineConfig({ ...uneven, max_generated_episodes: 10 }))).toEqual(['num_envs']);
    expect(paths(engineConfig({ ...uneven, plan: planFor() }))).toEqual(['num_envs']);
  });

  it('requires a plan to match the engine’s cache, producer count and budgets', () => {
    expect(paths(engineConfig({ plan: planFor({ buffer_size: 8 }) }))).toEqual([
      'plan.buffer_size',
    ]);
    expect(paths(engineConfig({ plan: planFor({ num_envs: 4 }) }))).toEqual(['plan.num_envs']);
    expect(paths(engineConfig({ plan: planFor({ episode_sample_budget: 3 }) }))).toEqual([
      'plan.episode_sample_budget',
    ]);
    expect(paths(engineConfig({ plan: planFor({ episode_sample_hard_limit: 9 }) }))).toEqual([
      'plan.episode_sample_hard_limit',
    ]);
    expect(
      paths(
        engineConfig({
          plan: planFor({ buffer_size: 4, num_envs: 2, episode_sample_budget: 2 }),
        }),
      ),
    ).toEqual([]);
    // One cache holds 4 episodes × 2 chunks: a batch of 9 could never be funded.
    expect(findings(engineConfig({ plan: planFor({ batch_size: 9 }) }))).toEqual([
      'plan.batch_size: 9 chunks is more than one cache can serve (buffer_size × episode_sample_budget = 8)',
    ]);
  });

  it('requires the plan’s rates to be finite and positive', () => {
    for (const rate of [0, -1, Number.NaN, Infinity]) {
      expect(
        paths(engineConfig({ plan: planFor({ training_chunks_per_second_target: rate }) })),
      ).toEqual(['plan.training_chunks_per_second_target']);
      expect(
        paths(engineConfig({ plan: planFor({ active_chunks_per_second_cap: rate }) })),
      ).toEqual(['plan.active_chunks_per_second_cap']);
    }
  });

  it('names every bad field at once, and refuses to build an engine from them', () => {
    const config = engineConfig({ buffer_size: 0, episode_sample_budget: 1.5, num_envs: -1 });
    expect(paths(config)).toEqual(['buffer_size', 'num_envs', 'episode_sample_budget']);
    expect(() => checkDataEngineConfig(config)).toThrow(
      expect.objectContaining({ code: 'invalid-data-config' }),
    );
    expect(() => new DataEngine({ config, producers: [], clock: new FakeClock() })).toThrow(
      /buffer_size: must be a positive integer \(got 0\)/,
    );
  });

  it('requires the hard limit to be at least the budget', () => {
    expect(paths(engineConfig({ episode_sample_budget: 3, episode_sample_hard_limit: 2 }))).toEqual(
      ['episode_sample_hard_limit'],
    );
  });

  it('refuses an engine whose producers do not match num_envs', () => {
    expect(
      () => new DataEngine({ config: engineConfig(), producers: [], clock: new FakeClock() }),
    ).toThrow(/num_envs: 0 producers were given for num_envs 2/);
  });

  it('requires manual refill under the flow controller', () => {
    const config = engineConfig({ refill_policy: 'auto' });
    expect(validateDataEngineConfig(config)).toEqual([]);
    expect(validateControllerUse(config).map((i) => i.path)).toEqual(['refill_policy']);
    const clock = new FakeClock();
    const engine = new DataEngine({
      config: engineConfig({ num_envs: 1, refill_policy: 'auto' }),
      producers: [{ index: 0, produce: () => Promise.resolve([]), close: () => undefined }],
      clock,
    });
    expect(() => new FlowController({ engine, clock, random: Math.random })).toThrow(
      /refill_policy: .*requires "manual"/,
    );
  });
});

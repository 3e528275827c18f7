/**
 * `data.engine`, `data.sample` and the environments, without a tensor
 * runtime: config findings name the node param and refuse the flow before
 * it runs (so no producer starts), and the live source ends with the run even when nothing
 * consumes it.
 */
import { describe, expect, it } from 'vitest';
import type { TensorRuntime } from '../runtime/tensor-runtime';
import type { FlowDocument } from '../flow/document';
import { validateFlow } from '../flow/validate';
import { resolveNodeParams } from '../run/params';
import { builtinCatalog } from '.';
import { LiveSource } from '../live/live-source';
import { watchedHost } from '../live/testing';
import { pendulumExample, runFlow, withParams } from './testing';
import { engineConfigFromParams, engineParamIssues } from '../live/engine-config';

const noRuntime: TensorRuntime = {
  info: { backend: 'wasm', adapter: null },
  createSession: () => Promise.reject(new Error('these tests run no model')),
};

/** The example up to `data.sample`: environment → data engine → sampler. */
function sourceFlow(engine: Record<string, number | string | boolean> = {}): FlowDocument {
  const flow = withParams(pendulumExample(), 'engine', engine);
  const kept = new Set(['env', 'engine', 'sample']);
  return {
    ...flow,
    outputs: [],
    nodes: flow.nodes.filter((n) => kept.has(n.id)),
    edges: flow.edges.filter(
      (e) => kept.has(e.from.split('.')[0]!) && kept.has(e.to.split('.')[0]!),
    ),
  };
}

describe('data.engine config', () => {
  it.each([
    [{ buffer_size: 10, num_envs: 3 }, 'num_envs', 'must divide buffer_size (10)'],
    [{ data_wait_timeout: 0 }, 'data_wait_timeout', 'must be finite and positive seconds'],
    [{ poll_interval: 0 }, 'poll_interval', 'must be finite and positive seconds'],
    [{ refill_policy: 'auto' }, 'refill_policy', 'requires "manual"'],
    [{ max_generated_episodes: 16 }, 'max_generated_episodes', 'smaller than buffer_size (32)'],
    [
      { episode_sample_hard_limit: 4 },
      'episode_sample_hard_limit',
      'must be an integer ≥ episode_sample_budget (8)',
    ],
    [
      { training_chunks_per_second_target: 0 },
      'training_chunks_per_second_target',
      'finite and positive',
    ],
    [{ batch_size: 300 }, 'batch_size', 'more than one cache can serve'],
  ])('%o is refused before anything runs, naming param %s', async (params, param, message) => {
    const flow = sourceFlow(params);
    // The inspector and Run both see it: validation names the field, at its path in the document.
    const issues = validateFlow(flow, builtinCatalog);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe(`nodes[1].params.${param}`);
    expect(issues[0]!.message).toContain(`node 'engine' param '${param}': `);
    expect(issues[0]!.message).toContain(message);
    // A run that is handed it anyway refuses it whole: no node runs, no producer starts.
    const host = watchedHost();
    await expect(runFlow(flow, { runtime: noRuntime, producers: host })).rejects.toThrow(
      expect.objectContaining({ code: 'invalid-flow' }),
    );
    expect(host.made).toEqual([]);
  });

  it('a param bound to a flow input is checked with the value the run gives it', () => {
    const flow = sourceFlow();
    flow.inputs.push({ name: 'producers', type: 'int', default: 2 });
    const bound = withParams(flow, 'engine', {});
    const engine = bound.nodes.find((n) => n.id === 'engine')!;
    engine.params.num_envs = { $input: 'producers' };
    // Unknown until a run sets it, so editing does not flag it …
    expect(validateFlow(bound, builtinCatalog)).toEqual([]);
    // … and the run's value is checked across the other params.
    const kind = builtinCatalog.get('data.engine')!;
    expect(resolveNodeParams(engine, kind, { producers: 2 }, 1).issues).toEqual([]);
    expect(resolveNodeParams(engine, kind, { producers: 3 }, 1).issues).toEqual([
      {
        path: 'nodes[1].params.num_envs',
        message:
          "node 'engine' param 'num_envs' (from input 'producers'): must divide buffer_size (32) when a plan or max_generated_episodes is set (got 3)",
      },
    ]);
  });

  it('maps the engine config back to the node params, with 0 meaning none', () => {
    const params = {
      buffer_size: 32,
      num_envs: 2,
      refill_policy: 'manual' as const,
      episode_sample_budget: 8,
      episode_sample_hard_limit: 16,
      max_generated_episodes: 0,
      data_wait_timeout: 30,
      generation_timeout: 60,
      poll_interval: 0.01,
      plan: true,
      batch_size: 32,
      training_chunks_per_second_target: 4000,
      active_chunks_per_second_cap: 0,
      refill_remaining_chunks: 64,
    };
    const config = engineConfigFromParams(params);
    expect(config.max_generated_episodes).toBeNull();
    expect(config.plan?.active_chunks_per_second_cap).toBeNull();
    expect(engineParamIssues(config)).toEqual([]);
    expect(engineConfigFromParams({ ...params, plan: false }).plan).toBeNull();
    // Without a plan the controller is not involved, so `auto` is fine.
    expect(
      engineParamIssues(engineConfigFromParams({ ...params, plan: false, refill_policy: 'auto' })),
    ).toEqual([]);
    expect(
      engineParamIssues(engineConfigFromParams({ ...params, generation_timeout: Infinity })),
    ).toEqual([
      { path: 'generation_timeout', message: 'must be finite and positive seconds (got Infinity)' },
    ]);
  });
});

describe('the live source', () => {
  it('is live once its first generation has landed, and ends with the run though nothing consumed it', async () => {
    const host = watchedHost();
    let source: LiveSource | null = null;
    const report = await runFlow(sourceFlow(), {
      runtime: noRuntime,
      producers: host,
      onEmit: (metric, value) => {
        if (metric === 'engine.source') source = value as LiveSource;
      },
    });
    expect(report.result.status).toBe('ok');
    expect(source).toBeInstanceOf(LiveSource);
    const { engine } = source!;
    expect(engine.stats()).toMatchObject({ generationsReady: 1, producedEpisodes: 32 });
    expect(report.metrics.get('engine.produced_episodes')).toEqual([32]);
    expect(report.metrics.get('engine.cache_fill')).toEqual([32 * 8]);
    // Closed by the run: nothing more is produced or served.
    expect(() => engine.requestRefill()).toThrow('The data engine is closed');
    expect(host.made.map((p) => [p.requests.length, p.closed])).toEqual([
      [1, true],
      [1, true],
    ]);
  });

  it('data.sample names its param when the window does not fit', async () => {
    const flow = withParams(sourceFlow(), 'sample', { context_length: 0 });
    await expect(runFlow(flow, { runtime: noRuntime })).rejects.toThrow(
      "node 'sample' param 'context_length'",
    );
  });

  it('an environment feeds producers with its params', async () => {
    const host = watchedHost();
    let source: LiveSource | null = null;
    const flow = withParams(sourceFlow(), 'env', { num_envs: 4, episode_length: 10, seed: 7 });
    const report = await runFlow(flow, {
      runtime: noRuntime,
      producers: host,
      onEmit: (metric, value) => {
        if (metric === 'engine.source') source = value as LiveSource;
      },
    });
    expect(report.result.status).toBe('ok');
    expect(host.made.map((p) => p.requests)).toEqual([
      [{ generation: 1, count: 16 }],
      [{ generation: 1, count: 16 }],
    ]);
    expect(source!.environment).toMatchObject({ simulator: 'pendulum', numEnvs: 4, seed: 7 });
    const episodes = source!.engine.cache.episodes();
    expect(episodes).toHaveLength(32);
    for (const { data } of episodes)
      expect([data.length, data.observationSize, data.actionSize]).toEqual([10, 3, 1]);
  });

  it('the controller policy reaches the producers with its gains, and swings the pendulums up', async () => {
    let source: LiveSource | null = null;
    const flow = withParams(sourceFlow(), 'env', {
      policy: 'controller',
      episode_length: 200,
      balance_kd: 2.5,
    });
    const report = await runFlow(flow, {
      runtime: noRuntime,
      producers: watchedHost(),
      onEmit: (metric, value) => {
        if (metric === 'engine.source') source = value as LiveSource;
      },
    });
    expect(report.result.status).toBe('ok');
    expect(source!.environment).toMatchObject({
      policy: 'controller',
      gains: { swing_gain: 0.5, balance_kp: 10, balance_kd: 2.5 },
    });
    const episodes = source!.engine.cache.episodes();
    expect(episodes).toHaveLength(32);
    // cos θ of each episode's last observation: every rod ends upright.
    for (const { data } of episodes)
      expect(data.observations[data.observations.length - 3]).toBeGreaterThan(0.99);
  });
});

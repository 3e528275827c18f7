/**
 * The data engine's nodes end to end under Node: the "Pendulum world model"
 * example through the real executor and real onnxruntime-web (WASM), with
 * producers in-process. A test hands the run a producer host that slows its
 * producers down or breaks them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { TensorRuntime } from '../../src/core/runtime/tensor-runtime';
import { waitKinds } from '../../src/core/data/telemetry';
import { stuckUntilAborted, watchedHost } from '../../src/core/live/testing';
import { pendulumExample, runFlow, withParams } from '../../src/core/nodes/testing';
import { nodeRuntime } from './testing';

let runtime: TensorRuntime;
beforeAll(async () => {
  runtime = await nodeRuntime()('wasm');
});

describe('the Pendulum world model example', () => {
  it('trains a world model whose loss falls, charts the data engine, and beats persistence', async () => {
    const host = watchedHost();
    const report = await runFlow(pendulumExample(), {
      runtime,
      producers: host,
      inputs: { steps: 150 },
    });
    expect(report.result.status).toBe('ok');
    for (const [node, outcome] of report.outcomes) expect(outcome.status, node).toBe('ok');

    const loss = report.metrics.get('train.loss')!;
    expect(loss).toHaveLength(30);
    const head = loss.slice(0, 3).reduce((a, b) => a + b) / 3;
    const tail = loss.slice(-3).reduce((a, b) => a + b) / 3;
    expect(tail).toBeLessThan(head / 5);

    // Telemetry: cache fill, production and consumption, charted on the engine node.
    for (const metric of ['cache_fill', 'produced_episodes', 'consumed_chunks'])
      expect(report.metrics.get(`engine.${metric}`)?.length, metric).toBeGreaterThan(0);
    // 150 steps × 32 windows, from generations of 32 episodes × 8 chunks each.
    expect(report.metrics.get('engine.consumed_chunks')!.at(-1)).toBe(150 * 32);
    const produced = report.metrics.get('engine.produced_episodes')!;
    expect(produced.at(-1)! * 8).toBeGreaterThanOrEqual(150 * 32);
    expect(report.logs.get('engine')?.some((l) => l.startsWith('generation 1: requested'))).toBe(
      true,
    );

    // Every wait is an interval of a documented kind; the planned rate throttles.
    expect(report.intervals.length).toBeGreaterThan(0);
    for (const interval of report.intervals) {
      expect(waitKinds).toContain(interval.kind);
      expect(interval.end).toBeGreaterThanOrEqual(interval.start);
    }
    expect(report.intervals.map((i) => i.kind)).toContain('data_wait'); // the first generation

    // Multi-step evaluation: one point per horizon, better than holding the state still.
    expect(report.metrics.get('eval.horizon_error')).toHaveLength(16);
    const ratio = report.metrics.get('eval.persistence_ratio')![0]!;
    expect(ratio).toBeGreaterThan(0);
    expect(ratio).toBeLessThan(0.5);
    expect(report.result.outputs.prediction_error).toBeGreaterThan(0);

    // The source ended with the run: every producer was closed.
    expect(host.made).toHaveLength(2);
    for (const producer of host.made) expect(producer.closed).toBe(true);
  });

  it('trains cart-pole too, where episodes end early and windows are masked', async () => {
    const flow = pendulumExample();
    const cartpole = {
      ...flow,
      nodes: flow.nodes.map((n) => (n.id === 'env' ? { ...n, kind: 'env.cartpole' } : n)),
    };
    const report = await runFlow(withParams(cartpole, 'sample', { prediction_length: 8 }), {
      runtime,
      inputs: { steps: 40 },
    });
    expect(report.result.status).toBe('ok');
    expect(report.metrics.get('train.loss')).toHaveLength(8);
    expect(report.metrics.get('eval.horizon_error')!.length).toBeGreaterThan(0);
  });

  it('runs without a plan and with the auto refill policy', async () => {
    const flow = withParams(pendulumExample(), 'engine', { plan: false, refill_policy: 'auto' });
    const report = await runFlow(flow, { runtime, inputs: { steps: 40 } });
    expect(report.result.status).toBe('ok');
    expect(report.metrics.get('engine.consumed_chunks')!.at(-1)).toBe(40 * 32);
    expect(report.intervals.some((i) => i.kind === 'usage_throttle')).toBe(false);
  });

  it('stops at the production ceiling, once no complete batch can be funded', async () => {
    // 2 generations of 32 episodes, 8 chunks each, 16 in the final supply: 32 × (8 + 16) = 768 chunks.
    const flow = withParams(pendulumExample(), 'engine', { max_generated_episodes: 64 });
    const report = await runFlow(flow, { runtime, inputs: { steps: 1000 } });
    expect(report.result.status).toBe('ok');
    expect(report.metrics.get('engine.produced_episodes')!.at(-1)).toBe(64);
    const consumed = report.metrics.get('engine.consumed_chunks')!.at(-1)!;
    expect(consumed).toBeGreaterThan(64 * 8);
    expect(consumed).toBeLessThanOrEqual(64 * 16);
    expect(report.logs.get('train')?.join('\n')).toMatch(/stopped after \d+ steps/);
  });
});

describe('producers and the run', () => {
  it('a producer that throws fails the run with its own message, and nothing waits on', async () => {
    const host = watchedHost((request, _signal, producer) =>
      request.generation === 3 && producer === 1
        ? Promise.reject(new Error('the simulator diverged'))
        : Promise.resolve(),
    );
    const report = await runFlow(pendulumExample(), {
      runtime,
      producers: host,
      inputs: { steps: 1000 },
    });
    expect(report.result.status).toBe('error');
    expect(report.result.failed).toEqual(['train']);
    expect(report.outcomes.get('train')?.error).toBe(
      'Producer 1 failed while producing generation 3: the simulator diverged',
    );
    expect(report.outcomes.get('eval')?.status).toBe('skipped');
    expect(report.logs.get('engine')?.join('\n')).toContain(
      'producer 1 failed on generation 3: the simulator diverged',
    );
    for (const producer of host.made) expect(producer.closed).toBe(true);
  });

  it('a producer that fails on the first generation fails the data engine node', async () => {
    const host = watchedHost(() => Promise.reject(new Error('no such robot')));
    const report = await runFlow(pendulumExample(), { runtime, producers: host });
    expect(report.result.failed).toEqual(['engine']);
    expect(report.outcomes.get('engine')?.error).toMatch(
      /^Producer [01] failed while producing generation 1: no such robot$/,
    );
    expect(report.outcomes.get('train')?.status).toBe('skipped');
  });

  it('cancel stops producers in flight and the consumer waiting on them', async () => {
    // The first generation lands; the second never does, and the run is cancelled while
    // the consumer waits for it.
    const abort = new AbortController();
    const host = watchedHost((request, signal) => {
      if (request.generation === 1) return Promise.resolve();
      setTimeout(() => abort.abort(), 100);
      return stuckUntilAborted(signal);
    });
    const report = await runFlow(pendulumExample(), {
      runtime,
      producers: host,
      inputs: { steps: 1000 },
      signal: abort.signal,
    });
    expect(report.result.status).toBe('cancelled');
    expect(report.outcomes.get('train')?.status).toBe('cancelled');
    expect(report.outcomes.get('eval')?.status).toBe('cancelled');
    // The consumer's wait for the batch's quota was cut short and still recorded.
    expect(report.intervals.at(-1)?.kind).toBe('quota_wait');
    for (const producer of host.made)
      expect(producer.requests.map((r) => r.generation)).toEqual([1, 2]);
    for (const producer of host.made) {
      expect(producer.closed).toBe(true);
      expect(producer.signals[1]!.aborted).toBe(true);
    }
  });

  it('cancel during the wait for a generation that never comes ends the run promptly', async () => {
    const host = watchedHost((_request, signal) => stuckUntilAborted(signal));
    const abort = new AbortController();
    const running = runFlow(pendulumExample(), { runtime, producers: host, signal: abort.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    abort.abort();
    const report = await running;
    expect(report.result.status).toBe('cancelled');
    expect(report.outcomes.get('engine')?.status).toBe('cancelled');
    expect(report.intervals.map((i) => i.kind)).toEqual(['data_wait']);
    for (const producer of host.made) expect(producer.closed).toBe(true);
  });
});

import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { inProcessProducers } from '../../src/core/live/producer-host';
import { builtinCatalog } from '../../src/core/nodes';
import type { FlowDocument } from '../../src/core/flow/document';
import { metricSeries } from '../../src/db/metrics';
import { readRunRecord } from '../../src/db/runs';
import { FlowbenchDb } from '../../src/db/schema';
import { checkRunParity } from './parity-run';
import { EnginePools } from './programs';
import { driveRun } from './run-driver';
import { journalTestRun, loadFlow, nodeRuntime, testDriverOptions } from './testing';

const example = loadFlow('src/examples/spirals-mlp.flow.json');
const pendulum = loadFlow('src/examples/pendulum-world-model.flow.json');

/** The example with Adam and GELU. */
function adamGelu(): FlowDocument {
  const flow = structuredClone(example);
  for (const node of flow.nodes) {
    if (node.id === 'model') node.params.activation = 'gelu';
    if (node.id === 'train') Object.assign(node.params, { optimizer: 'adam', lr: 0.01 });
  }
  return flow;
}

let db: FlowbenchDb;
let n = 0;
afterEach(async () => {
  db.close();
  await db.delete();
});

const parityOptions = () => ({
  db,
  catalog: builtinCatalog,
  pools: new EnginePools(() => null),
  runtimeFor: nodeRuntime(),
  producers: inProcessProducers,
  now: () => Date.now(),
});

describe('checkRunParity (real onnxruntime, WASM)', () => {
  it('runs a finished run again serially and interleaved: every output and metric identical', async () => {
    db = new FlowbenchDb(`parity-${++n}`);
    const id = await journalTestRun(db, example, { steps: 40 });
    expect(await driveRun(id, new AbortController().signal, testDriverOptions(db))).toBe('ok');
    const before = await readRunRecord(db, id);

    const report = await checkRunParity(id, parityOptions());
    expect(report).toMatchObject({ identical: true, status: 'ok', reason: '', backend: 'wasm' });
    expect(report.nodes.map((node) => [node.node, node.requests, node.identical])).toEqual([
      ['train', 1, true],
      ['eval', 1, true],
    ]);
    const train = report.nodes[0]!;
    expect(train.ticks).toEqual({ serial: 40, interleaved: 40 });
    expect(train.lines.map((l) => `${l.kind} ${l.name}`)).toEqual([
      'status status',
      'output train.deviceFedUnits',
      'output train.gpuFedUnits',
      // The optimizer state the trained model keeps is compared too.
      'output train.state.steps',
      'output train.state.velocity.W0',
      'output train.state.velocity.W1',
      'output train.state.velocity.W2',
      'output train.state.velocity.b0',
      'output train.state.velocity.b1',
      'output train.state.velocity.b2',
      'output train.weights.W0',
      'output train.weights.W1',
      'output train.weights.W2',
      'output train.weights.b0',
      'output train.weights.b1',
      'output train.weights.b2',
      'metric train.loss',
    ]);
    expect(report.nodes[1]!.lines.map((l) => `${l.kind} ${l.name}`)).toContain(
      'metric eval.accuracy',
    );
    expect(report.nodes.flatMap((node) => node.lines).every((l) => l.detail === null)).toBe(true);
    // The check wrote nothing: the record is as it was.
    expect(await readRunRecord(db, id)).toEqual(before);
  });

  it('with Adam and GELU: the loss falls, and parity holds', async () => {
    db = new FlowbenchDb(`parity-${++n}`);
    const id = await journalTestRun(db, adamGelu(), { steps: 60 });
    expect(await driveRun(id, new AbortController().signal, testDriverOptions(db))).toBe('ok');
    const loss = (await metricSeries(db, id, 'train.loss')).map((p) => p.value);
    expect(loss).toHaveLength(12);
    expect(loss.at(-1)!).toBeLessThan(loss[0]! * 0.9);
    const logs = (await readRunRecord(db, id))!.nodes.find((x) => x.node === 'train')?.logs;
    expect(logs).toContain('training on wasm with adam');
    const report = await checkRunParity(id, parityOptions());
    expect(report.identical).toBe(true);
  });

  it('covers the world-model nodes: training replays the batches it read from the live source', async () => {
    db = new FlowbenchDb(`parity-${++n}`);
    const id = await journalTestRun(db, pendulum, { steps: 30 });
    expect(await driveRun(id, new AbortController().signal, testDriverOptions(db))).toBe('ok');
    const report = await checkRunParity(id, parityOptions());
    expect(report).toMatchObject({ identical: true, status: 'ok' });
    expect(report.nodes.map((node) => [node.node, node.requests, node.identical])).toEqual([
      ['train', 1, true],
      ['eval', 1, true],
    ]);
    const lines = (node: string) =>
      report.nodes.find((x) => x.node === node)!.lines.map((l) => `${l.kind} ${l.name}`);
    expect(lines('train')).toContain('output train.weights.W0');
    expect(lines('train')).toContain('output train.state.m.W0');
    expect(lines('train')).toContain('metric train.loss');
    expect(lines('eval')).toEqual([
      'status status',
      'output rollout.error',
      'output rollout.horizons',
      'output rollout.persistence',
      'metric horizon_error',
    ]);
  });

  it('says why when there is nothing to compare or the run is not stored', async () => {
    db = new FlowbenchDb(`parity-${++n}`);
    const dataOnly: FlowDocument = {
      ...example,
      outputs: [],
      nodes: example.nodes.filter((node) => node.id === 'data' || node.id === 'split'),
      edges: example.edges.filter((edge) => edge.to === 'split.dataset'),
    };
    const id = await journalTestRun(db, dataOnly, {});
    expect(await checkRunParity(id, parityOptions())).toMatchObject({
      identical: false,
      status: 'ok',
      reason: 'this run has no model programs to compare',
      nodes: [],
    });
    await expect(checkRunParity('nope' as typeof id, parityOptions())).rejects.toThrow(
      'run nope is not stored',
    );
  });
});

describe('several requests from one node (real onnxruntime, WASM)', () => {
  /** The example with its evaluation split into `requests` requests. */
  function evalRequests(requests: number): FlowDocument {
    const flow = structuredClone(example);
    for (const node of flow.nodes) if (node.id === 'eval') node.params.requests = requests;
    return flow;
  }

  it('interleaves 4 evaluation requests over one resident model, identical to serial and to one request', async () => {
    db = new FlowbenchDb(`parity-${++n}`);
    const one = await journalTestRun(db, evalRequests(1), { steps: 20 });
    const four = await journalTestRun(db, evalRequests(4), { steps: 20 });
    let sessions = 0;
    const counting = nodeRuntime();
    const options = {
      ...testDriverOptions(db),
      runtimeFor: async (choice: Parameters<typeof counting>[0]) => {
        const runtime = await counting(choice);
        const create = runtime.createSession.bind(runtime);
        runtime.createSession = (...args) => {
          sessions++;
          return create(...args);
        };
        return runtime;
      },
    };
    expect(await driveRun(one, new AbortController().signal, options)).toBe('ok');
    const oneSessions = sessions;
    sessions = 0;
    expect(await driveRun(four, new AbortController().signal, options)).toBe('ok');
    // The train step and one inference model, however many requests evaluate.
    expect(sessions).toBe(oneSessions);
    const accuracy = async (id: typeof one) =>
      (await readRunRecord(db, id))!.run.result.accuracy as number;
    expect(await accuracy(four)).toBe(await accuracy(one));
    const logs = (await readRunRecord(db, four))!.nodes.find((node) => node.node === 'eval')?.logs;
    expect(logs).toMatch(/^\d+ of 300 rows right on wasm \(4 requests over one resident model\)$/);

    const report = await checkRunParity(four, parityOptions());
    expect(report.identical).toBe(true);
    const evaluation = report.nodes.find((node) => node.node === 'eval')!;
    expect(evaluation.requests).toBe(4);
    // Two steps per request: one by one takes 4 × 2 ticks, interleaved 2.
    expect(evaluation.ticks).toEqual({ serial: 8, interleaved: 2 });
    expect(new Set(evaluation.lines.map((l) => l.request))).toEqual(
      new Set(['eval#1', 'eval#2', 'eval#3', 'eval#4']),
    );
  });
});

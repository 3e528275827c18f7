import { describe, expect, it } from 'vitest';
import type { FlowDocument } from '../flow/document';
import {
  describeEdgeChange,
  describeNodeChange,
  diffFingerprints,
  diffFlows,
  diffMetric,
  diffParams,
  flowsAlike,
} from './diff';
import type { RunFingerprint } from './fingerprint';

const flow: Pick<FlowDocument, 'nodes' | 'edges'> = {
  nodes: [
    { id: 'data', kind: 'data.synthetic', params: { n: 1200 }, position: { x: 0, y: 40 } },
    { id: 'model', kind: 'model.mlp', params: { hidden: 32 }, position: { x: 280, y: 260 } },
    {
      id: 'train',
      kind: 'train.classifier',
      params: { lr: { $input: 'lr' }, steps: 10 },
      position: { x: 580, y: 120 },
    },
  ],
  edges: [
    { from: 'data.dataset', to: 'train.dataset' },
    { from: 'model.model', to: 'train.model' },
  ],
};

const edited = (change: (doc: Pick<FlowDocument, 'nodes' | 'edges'>) => void) => {
  const copy = structuredClone(flow);
  change(copy);
  return copy;
};

describe('diffing two flow documents', () => {
  it('sees no change when only positions, labels and groups moved', () => {
    const moved = edited((doc) => {
      doc.nodes.forEach((node, i) => (node.position = { x: 1000 - i * 50, y: i * 300 }));
      doc.nodes[1]!.label = 'the net';
      doc.nodes.reverse();
      doc.edges.reverse();
    });
    const diff = diffFlows(flow, moved);
    expect(diff).toEqual({ nodes: [], edges: [] });
    expect(flowsAlike(diff)).toBe(true);
  });

  it('names exactly the node and param that changed', () => {
    const diff = diffFlows(
      flow,
      edited((doc) => {
        doc.nodes[1]!.params.hidden = 16;
        doc.nodes[1]!.position = { x: 9, y: 9 };
      }),
    );
    expect(diff.nodes).toEqual([
      { change: 'params', node: 'model', params: [{ param: 'hidden', a: 32, b: 16 }] },
    ]);
    expect(diff.edges).toEqual([]);
    expect(diff.nodes.map(describeNodeChange)).toEqual(['model: hidden 32 → 16']);
  });

  it('tells a param set from one left to its default, and an input binding from a literal', () => {
    const diff = diffFlows(
      flow,
      edited((doc) => {
        doc.nodes[2]!.params.lr = 0.05;
        delete doc.nodes[2]!.params.steps;
      }),
    );
    expect(diff.nodes.map(describeNodeChange)).toEqual([
      'train: lr ← input lr → 0.05, steps 10 → —',
    ]);
  });

  it('reports added, removed and re-kinded nodes, bypass and edges', () => {
    const diff = diffFlows(
      flow,
      edited((doc) => {
        doc.nodes = doc.nodes.filter((node) => node.id !== 'data');
        doc.nodes[0]!.kind = 'model.cnn';
        doc.nodes[0]!.params = { filters: 8 };
        doc.nodes[1]!.bypass = true;
        doc.nodes.push({ id: 'eval', kind: 'eval.accuracy', params: {}, position: { x: 0, y: 0 } });
        doc.edges = [
          { from: 'model.model', to: 'train.model' },
          { from: 'train.model', to: 'eval.model' },
        ];
      }),
    );
    expect(diff.nodes.map(describeNodeChange)).toEqual([
      'model: kind model.mlp → model.cnn',
      'train: bypassed',
      'eval: added (eval.accuracy)',
      'data: removed (data.synthetic)',
    ]);
    expect(diff.edges.map(describeEdgeChange)).toEqual([
      'edge added: train.model → eval.model',
      'edge removed: data.dataset → train.dataset',
    ]);
  });
});

describe('diffing two runs', () => {
  it('marks exactly the params that differ, the seed last', () => {
    const rows = diffParams(
      { params: { lr: 0.1, steps: 10, act: 'relu' }, seed: 0 },
      { params: { lr: 0.05, steps: 10, extra: true }, seed: 0 },
    );
    expect(rows).toEqual([
      { name: 'act', a: 'relu', b: undefined, same: false },
      { name: 'extra', a: undefined, b: true, same: false },
      { name: 'lr', a: 0.1, b: 0.05, same: false },
      { name: 'steps', a: 10, b: 10, same: true },
      { name: 'seed', a: 0, b: 0, same: true },
    ]);
  });

  it('gives each metric its last values and whether the series are identical bit for bit', () => {
    const loss = [2.3, 1.1, 0.5];
    expect(diffMetric('train.loss', loss, Float64Array.from(loss))).toEqual({
      metric: 'train.loss',
      a: 0.5,
      b: 0.5,
      aPoints: 3,
      bPoints: 3,
      identical: true,
    });
    // Same last value, another path to it: not identical.
    expect(diffMetric('train.loss', [2.3, 1.2, 0.5], loss).identical).toBe(false);
    // One run stopped early.
    expect(diffMetric('train.loss', loss, [2.3])).toMatchObject({
      a: 0.5,
      b: 2.3,
      identical: false,
    });
    expect(diffMetric('eval.accuracy', [], [0.9])).toMatchObject({ a: undefined, b: 0.9 });
  });

  it('says series of runs on different engines agree within the tolerance, never identical', () => {
    const wasm = [0.6971344828605652, 0.2730577915906906];
    const cpu = [0.6971344828605652, 0.2730577766895294];
    expect(diffMetric('train.loss', wasm, cpu, 1e-4)).toMatchObject({
      identical: false,
      within: 1e-4,
    });
    // Beyond it, or with no tolerance asked for (the same engine), they differ.
    expect(diffMetric('train.loss', wasm, [0.69, 0.27], 1e-4)).not.toHaveProperty('within');
    expect(diffMetric('train.loss', wasm, cpu)).not.toHaveProperty('within');
  });

  it('lists every fingerprint fact of both runs and which differ', () => {
    const fingerprint: RunFingerprint = {
      app: { version: '0.1.0', build: 'abc1234' },
      ort: '1.30.0',
      backend: 'wasm',
      adapter: null,
      browser: {
        userAgent: 'Mozilla/5.0 HeadlessChrome/156.0.0.0',
        brands: [{ brand: 'Chromium', version: '156' }],
        platform: 'Linux',
        hardwareConcurrency: 2,
        deviceMemory: 8,
        crossOriginIsolated: true,
      },
    };
    const other = structuredClone(fingerprint);
    other.backend = 'webgpu';
    const rows = diffFingerprints(fingerprint, other);
    expect(rows.filter((row) => !row.same)).toEqual([
      { key: 'backend', label: 'Backend', a: 'wasm', b: 'webgpu', same: false },
    ]);
    expect(rows.find((row) => row.key === 'app.version')).toMatchObject({ a: '0.1.0', same: true });
    // A run from before fingerprints: every fact differs from nothing.
    expect(
      diffFingerprints(fingerprint, undefined).every((row) => !row.same && row.b === '—'),
    ).toBe(true);
    expect(diffFingerprints(undefined, undefined)).toEqual([]);
  });
});

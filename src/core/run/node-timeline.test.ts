import { describe, expect, it } from 'vitest';
import type { FlowDocument } from '../flow/document';
import { buildNodeTimeline, type NodeOutcome } from './node-timeline';

const flow: Pick<FlowDocument, 'nodes' | 'edges'> = {
  nodes: [
    { id: 'data', kind: 'data.synthetic', params: {}, position: { x: 0, y: 0 } },
    { id: 'model', kind: 'model.mlp', params: {}, position: { x: 0, y: 0 }, label: 'the net' },
    { id: 'train', kind: 'train.classifier', params: {}, position: { x: 0, y: 0 } },
    { id: 'eval', kind: 'eval.accuracy', params: {}, position: { x: 0, y: 0 } },
  ],
  edges: [
    { from: 'data.dataset', to: 'train.dataset' },
    { from: 'model.model', to: 'train.model' },
    { from: 'train.model', to: 'eval.model' },
  ],
};

const T0 = Date.parse('2026-12-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const outcome = (
  node: string,
  status: NodeOutcome['status'],
  start: number | null,
  durationMs: number | null,
): NodeOutcome => ({ node, status, startedAt: start === null ? null : at(start), durationMs });

describe('a run as a Gantt chart of its nodes', () => {
  it('times each lane from the run start and shows how long a node waited once its inputs were ready', () => {
    const timeline = buildNodeTimeline(
      flow,
      [
        outcome('train', 'ok', 500, 2000),
        outcome('data', 'ok', 10, 100),
        outcome('model', 'ok', 20, 300),
        outcome('eval', 'ok', 2500, 50),
      ],
      at(0),
      at(2600),
      T0 + 99_999,
    );
    expect(timeline.lanes.map((l) => [l.node, l.ready, l.start, l.end, l.waitMs])).toEqual([
      ['data', 0, 10, 110, 10],
      ['model', 0, 20, 320, 20],
      // Ready when model ended (320 ms), it started at 500: 180 ms waiting for the engine.
      ['train', 320, 500, 2500, 180],
      ['eval', 2500, 2500, 2550, 0],
    ]);
    expect(timeline.lanes[1]!.title).toBe('the net');
    expect(timeline.lanes[0]!.title).toBe('data.synthetic');
    expect(timeline.span).toBe(2600);
  });

  it('draws a running node up to now and leaves a node that never started without a bar', () => {
    const timeline = buildNodeTimeline(
      flow,
      [
        outcome('data', 'ok', 0, 100),
        outcome('model', 'ok', 0, 50),
        outcome('train', 'running', 150, null),
        outcome('eval', 'queued', null, null),
      ],
      at(0),
      null,
      T0 + 1000,
    );
    const [, , train, evaluation] = timeline.lanes;
    expect(train).toMatchObject({ node: 'train', start: 150, end: 1000, waitMs: 50 });
    expect(evaluation).toEqual({
      node: 'eval',
      title: 'eval.accuracy',
      status: 'queued',
      durationMs: null,
      waitMs: 0,
    });
    expect(timeline.span).toBe(1000);
  });
});

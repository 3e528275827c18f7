/**
 * `train.world_model` keeps its optimizer's state in the trained model, and
 * a second world-model training fed that model resumes it, on the gallery's
 * pendulum example (real onnxruntime-web, producers in this thread). The
 * live source never repeats itself, so this checks what carries over (the
 * state's shapes, its step count going on, the log), not the steps bit for
 * bit: the train loop's own test does that on fixed batches.
 */
import { describe, expect, it } from 'vitest';
import type { TrainedModel } from '../catalog/values';
import { wasmRuntime } from '../onnx/testing';
import { pendulumExample, runFlow } from './testing';

const STEPS = 6;

describe('train.world_model', () => {
  it('keeps its Adam state in the trained model, and a second training resumes it', async () => {
    const example = pendulumExample();
    const train = example.nodes.find((n) => n.id === 'train')!;
    const flow = {
      ...example,
      nodes: [...example.nodes, { ...train, id: 'again', position: { x: 900, y: 400 } }],
      edges: [
        ...example.edges,
        { from: 'train.model', to: 'again.model' },
        { from: 'sample.windows', to: 'again.windows' },
      ],
    };
    const models = new Map<string, TrainedModel>();
    const report = await runFlow(flow, {
      runtime: wasmRuntime,
      inputs: { steps: STEPS },
      onEmit: (port, value) => {
        if (port.endsWith('.model')) models.set(port, value as TrainedModel);
      },
    });
    expect(report.result.status).toBe('ok');
    const first = models.get('train.model')!;
    const second = models.get('again.model')!;
    const trainedSteps = (node: string) =>
      Number(/^trained (\d+) steps$/.exec(report.logs.get(node)!.at(-1)!)?.[1]);
    const before = trainedSteps('train');
    expect(first.optimizerState?.optimizer).toBe('adam');
    expect(first.optimizerState?.steps).toBe(before);
    for (const slot of first.weights.layout)
      for (const moment of ['m', 'v'])
        expect(first.optimizerState?.tensors[`${moment}.${slot.name}`]).toHaveLength(
          first.weights.values[slot.name]!.length,
        );
    expect(report.logs.get('again')).toContain(
      `resumed adam state from the input model (${before} steps before)`,
    );
    expect(second.optimizerState?.steps).toBe(before + trainedSteps('again'));
  }, 120_000);
});

import { describe, expect, it } from 'vitest';
import type { OnnxValueInfo } from '../../core/onnx/signature';
import type { FlowDocument } from '../../core/flow/document';
import { feedsView, parseTensorFiles, tensorFilesOf } from './model-feeds';

/** A voice-activity detector's inputs: a frame of samples, a state, a sample rate. */
const vad: OnnxValueInfo[] = [
  { name: 'input', type: 'float32', shape: ['batch', 2] },
  { name: 'state', type: 'float32', shape: [2, 'batch', 4] },
  { name: 'sr', type: 'int64', shape: [] },
];
const wired = { dataset: false, tensor: false, samples: false };
const choices = (view: ReturnType<typeof feedsView>) =>
  Object.fromEntries(view.rows.map((r) => [r.input.name, r.choice]));

describe('the inspector’s feeds list', () => {
  it('shows the sequence input fed by the samples port, not as “not fed”', () => {
    const view = feedsView(vad, '{"state":0,"sr":16000}', {
      wired: { ...wired, samples: true },
      sequence: 'input',
      frame: { input: 'input', dims: [1, 2] },
    });
    expect(choices(view)).toEqual({ input: 'samples', state: 'constant', sr: 'constant' });
    expect(view.problem).toBeNull();
    // Without the samples wired, the same map leaves the input unfed.
    const unwired = feedsView(vad, '{"state":0,"sr":16000}', { wired, sequence: 'input' });
    expect(choices(unwired).input).toBe('');
    expect(unwired.problem).toBe(
      "the model's input 'input' is not fed: map it to the dataset, a tensor or a constant in the inspector",
    );
  });

  it('offers the tensor port, and says when it is mapped but not wired, or wired but not mapped', () => {
    const map = '{"input":"tensor","state":0,"sr":16000}';
    const fed = feedsView(vad, map, { wired: { ...wired, tensor: true } });
    expect(choices(fed)).toEqual({ input: 'tensor', state: 'constant', sr: 'constant' });
    expect(fed.problem).toBeNull();
    expect(feedsView(vad, map, { wired }).problem).toBe(
      "the model's input 'input' is mapped to the tensor, but nothing is wired to the node's 'tensor' port",
    );
    expect(
      feedsView(vad, '{"input":[[1,2]],"state":0,"sr":1}', { wired: { ...wired, tensor: true } })
        .problem,
    ).toBe("a tensor is wired to port 'tensor': feed a model input from it");
  });

  it('offers every tensor port, one input each, and names the port mapped but not wired', () => {
    const map = '{"input":"tensor","state":0,"sr":"tensor2"}';
    const both = feedsView(vad, map, { wired: { ...wired, tensor: true, tensor2: true } });
    expect(choices(both)).toEqual({ input: 'tensor', state: 'constant', sr: 'tensor2' });
    expect(both.problem).toBeNull();
    expect(feedsView(vad, map, { wired: { ...wired, tensor: true } }).problem).toBe(
      "the model's input 'sr' is mapped to the tensor on port 'tensor2', but nothing is wired to the node's 'tensor2' port",
    );
    expect(
      feedsView(vad, '{"input":"tensor","state":0,"sr":16000}', {
        wired: { ...wired, tensor: true, tensor3: true },
      }).problem,
    ).toBe("a tensor is wired to port 'tensor3': feed a model input from it");
    expect(
      feedsView(vad, '{"input":"tensor2","state":"tensor2","sr":1}', {
        wired: { ...wired, tensor2: true },
      }).problem,
    ).toBe(
      "the model's input 'state' is mapped to the tensor on port 'tensor2', which already feeds 'input'",
    );
  });

  it('keeps the checks of the map itself: a constant of the wrong type is named', () => {
    const view = feedsView(vad, '{"input":"tensor","state":0,"sr":0.5}', {
      wired: { ...wired, tensor: true },
    });
    expect(view.problem).toMatch(/^the model's input 'sr' takes int64; the constant 0.5/);
    expect(view.rows.find((r) => r.input.name === 'sr')?.constant).toBe(0.5);
  });

  it('says beside each constant what its input’s type takes, float64 and int16 among them', () => {
    const mixed: OnnxValueInfo[] = [
      { name: 'x', type: 'float64', shape: [2] },
      { name: 'n', type: 'int16', shape: [2] },
      { name: 'rows', type: 'float32', shape: ['batch', 2] },
    ];
    const view = feedsView(mixed, '{"x":[0.1,2.5],"n":-300,"rows":"dataset"}', {
      wired: { ...wired, dataset: true },
    });
    expect(view.problem).toBeNull();
    expect(view.rows.map((r) => r.takes ?? null)).toEqual([
      'float64: any number',
      'int16: a whole number from −32768 to 32767',
      null,
    ]);
    expect(
      feedsView(mixed, '{"x":0,"n":-40000,"rows":"dataset"}', {
        wired: { ...wired, dataset: true },
      }).problem,
    ).toBe(
      "the model's input 'n' takes int16; the constant -40000 is not an int16 (a whole number from −32768 to 32767)",
    );
  });
});

describe('the files behind a model’s tensor ports', () => {
  const doc = {
    format: 'flowbench.flow/1',
    name: 'arrays',
    nodes: [
      { id: 'rows', kind: 'data.tensor', params: { file: 'sha256:aa', array: '' } },
      { id: 'pairs', kind: 'data.tensor', params: { file: 'sha256:bb', array: 'x y' } },
      { id: 'empty', kind: 'data.tensor', params: { file: '' } },
      { id: 'split', kind: 'data.split', params: {} },
      { id: 'infer', kind: 'model.onnx', params: {} },
    ],
    edges: [
      { from: 'rows.tensor', to: 'infer.tensor' },
      { from: 'pairs.tensor', to: 'infer.tensor3' },
      { from: 'empty.tensor', to: 'infer.tensor2' },
      { from: 'split.train', to: 'infer.dataset' },
    ],
  } as unknown as FlowDocument;

  it('are the data.tensor files wired to each tensor port, a port with no file left out', () => {
    const text = tensorFilesOf(doc, 'infer');
    expect(parseTensorFiles(text)).toEqual({
      tensor: { digest: 'sha256:aa', array: '' },
      tensor3: { digest: 'sha256:bb', array: 'x y' },
    });
    // The same wiring gives the same text: a store selector keeps its value.
    expect(tensorFilesOf(structuredClone(doc), 'infer')).toBe(text);
  });
  it('are none for a node with no tensor edges, or no node', () => {
    expect(tensorFilesOf(doc, 'split')).toBe('');
    expect(tensorFilesOf(null, 'infer')).toBe('');
    expect(parseTensorFiles('')).toEqual({});
  });
});

import { describe, expect, it } from 'vitest';
import { isFlowbenchError } from '../errors';
import {
  feedsProblem,
  formatInputMap,
  parseInputMap,
  planFeeds,
  tensorShapeProblem,
  type InputMap,
  type PortTensor,
} from './feeds';
import type { OnnxValueInfo } from './signature';

/** A voice-activity detector's inputs: rows, a state carried between frames, a sample rate. */
const vad: OnnxValueInfo[] = [
  { name: 'input', type: 'float32', shape: ['batch', 3] },
  { name: 'state', type: 'float32', shape: [2, 'batch', 4] },
  { name: 'sr', type: 'int64', shape: [] },
];
const rows = { count: 5, featureSize: 3 };

function refusal(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    if (isFlowbenchError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('feeding a model’s inputs', () => {
  it('feeds the rows, fills a state to the batch they bind, and types the sample rate as int64', () => {
    const plan = planFeeds(vad, { input: 'dataset', state: 0, sr: 16000 }, rows);
    expect(plan.dataset).toBe('input');
    expect(plan.dims).toEqual({ batch: 5 });
    expect(plan.constants.sr).toEqual({
      location: 'constant',
      type: 'int64',
      dims: [],
      values: [16000],
    });
    expect(plan.constants.state!.dims).toEqual([2, 5, 4]);
    expect(plan.constants.state!.values).toHaveLength(40);
    expect(plan.constants.input).toBeUndefined();
  });

  it('takes a nested array as it is, and binds the symbolic dims it fixes', () => {
    const state = [[[1, 2, 3, 4]], [[5, 6, 7, 8]]];
    const plan = planFeeds(vad, { input: [[0.5, 1, 2]], state, sr: 8000 }, null);
    expect(plan.dataset).toBeNull();
    expect(plan.dims).toEqual({ batch: 1 });
    expect(plan.constants.state!.values).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(plan.constants.input).toMatchObject({ type: 'float32', dims: [1, 3] });
  });

  it('names the input and the dimension that does not fit', () => {
    expect(
      refusal(() => planFeeds(vad, { input: 'dataset', state: [[[0, 0, 0, 0]]], sr: 1 }, rows)),
    ).toEqual({
      code: 'model-feed',
      message:
        "the model's input 'state' takes float32 [2×batch×4]; dimension 0 is 2, the constant [1×1×4] has 1",
    });
    const state = [[[0, 0, 0, 0]], [[0, 0, 0, 0]]];
    expect(refusal(() => planFeeds(vad, { input: 'dataset', state, sr: 1 }, rows)).message).toBe(
      "the model's input 'state' takes float32 [2×batch×4]; dimension 1 ('batch') is 5 as input 'input' has it, the constant [2×1×4] has 1",
    );
    expect(
      refusal(() =>
        planFeeds(vad, { input: 'dataset', state: 0, sr: 1 }, { count: 5, featureSize: 2 }),
      ).message,
    ).toBe(
      "the model's input 'input' takes float32 [batch×3]; dimension 1 is 3, the dataset's rows [5×2] has 2",
    );
    expect(
      refusal(() => planFeeds(vad, { input: 'dataset', state: 0, sr: [16000] }, rows)).message,
    ).toBe("the model's input 'sr' takes int64 []; the constant [1] has 1 dimension, not 0");
  });

  it('refuses to fill a shape whose symbolic dim nothing fixes', () => {
    expect(refusal(() => planFeeds(vad, { input: 0, state: 0, sr: 1 }, null)).message).toBe(
      "the model's input 'input' takes float32 [batch×3]; dimension 0 ('batch') is not known, so 0 cannot fill it: feed an input that fixes it, or type the whole array",
    );
  });

  it('checks each value against the model’s type, naming it', () => {
    const only = (info: OnnxValueInfo, map: InputMap) =>
      refusal(() => planFeeds([info], map, null));
    expect(only({ name: 'sr', type: 'int64', shape: [] }, { sr: 1.5 }).message).toBe(
      "the model's input 'sr' takes int64; the constant 1.5 is not an int64 typed exactly (a whole number within ±2^53)",
    );
    expect(only({ name: 'sr', type: 'int64', shape: [] }, { sr: 2 ** 60 }).code).toBe('model-feed');
    expect(
      only({ name: 'mask', type: 'bool', shape: [3] }, { mask: [true, 2, false] }).message,
    ).toBe(
      "the model's input 'mask' takes bool; the constant's element 1 (2) is not a bool (true, false, 0 or 1)",
    );
    expect(only({ name: 'px', type: 'uint8', shape: [2] }, { px: [0, 256] }).message).toMatch(
      /element 1 \(256\) is not a uint8/,
    );
    expect(only({ name: 'h', type: 'float16', shape: [1] }, { h: [70000] }).message).toMatch(
      /beyond float16’s range/,
    );
    expect(only({ name: 'i', type: 'int32', shape: [] }, { i: 2 ** 31 }).message).toMatch(
      /not an int32/,
    );
    expect(only({ name: 's', type: 'string', shape: [] }, { s: 1 }).message).toBe(
      "the model's input 's' takes string, which a constant cannot be typed as (float32, float16, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool)",
    );
    expect(only({ name: 'x', type: 'float32', shape: [2, 2] }, { x: [[1, 2], [3]] }).message).toBe(
      "the model's input 'x' is given a constant that is not a rectangular array: the constant[1] has 1 elements where its siblings have 2",
    );
  });

  it('makes bools 0 or 1 and keeps a one-input model fed from the dataset by default', () => {
    const mask = planFeeds(
      [{ name: 'mask', type: 'bool', shape: [2] }],
      { mask: [true, false] },
      null,
    );
    expect(mask.constants.mask!.values).toEqual([1, 0]);
    const one = planFeeds([{ name: 'x', type: 'float32', shape: ['batch', 3] }], {}, rows);
    expect(one.dataset).toBe('x');
  });

  it('asks for a map when a model has several inputs, and refuses names it does not have', () => {
    expect(refusal(() => planFeeds(vad, {}, rows)).message).toBe(
      'the model has 3 inputs (input float32 [batch×3], state float32 [2×batch×4], sr int64 []); map each to the dataset, a tensor or a constant in the inspector',
    );
    expect(refusal(() => planFeeds(vad, { input: 'dataset', state: 0 }, rows)).message).toBe(
      "the model's input 'sr' is not fed: map it to the dataset, a tensor or a constant in the inspector",
    );
    expect(
      refusal(() => planFeeds(vad, { input: 'dataset', state: 0, sr: 1, rate: 1 }, rows)).message,
    ).toBe(
      "param 'inputs': maps 'rate', which the model does not have; its inputs are input float32 [batch×3], state float32 [2×batch×4], sr int64 []",
    );
    expect(refusal(() => planFeeds(vad, { input: 'dataset', state: 0, sr: 1 }, null)).message).toBe(
      "the model's input 'input' is mapped to the dataset, but no dataset is wired to the node",
    );
  });

  it('reads and writes the param as JSON, refusing what is not a map', () => {
    const map = { input: 'dataset', state: 0, sr: 16000 } as const;
    expect(parseInputMap(formatInputMap(map))).toEqual(map);
    expect(formatInputMap({})).toBe('');
    expect(parseInputMap('')).toEqual({});
    expect(refusal(() => parseInputMap('{"sr": 16000')).message).toMatch(
      /^param 'inputs': not JSON/,
    );
    expect(refusal(() => parseInputMap('[1]')).message).toBe(
      "param 'inputs': expected a JSON object of model input name → source",
    );
    expect(refusal(() => parseInputMap('{"x": "rows"}')).message).toBe(
      `param 'inputs': input 'x' is fed from "dataset", a tensor port ("tensor", "tensor2", "tensor3", "tensor4"), a number, true/false or an array; got "rows"`,
    );
  });

  it('tells the inspector what is wrong before the rows are known, and nothing the rows may fix', () => {
    // The state's batch comes from rows not yet read: no complaint.
    expect(feedsProblem(vad, { input: 'dataset', state: 0, sr: 16000 })).toBeNull();
    expect(feedsProblem(vad, { input: 'dataset', state: 0, sr: 0.5 })).toMatch(
      /^the model's input 'sr' takes int64; the constant 0.5 is not an int64/,
    );
    expect(feedsProblem(vad, { input: 'dataset', state: [[[0, 0, 0, 0]]], sr: 1 })).toMatch(
      /^the model's input 'state' takes float32 \[2×batch×4\]; dimension 0 is 2/,
    );
    expect(feedsProblem(vad, { input: 'dataset', state: 0, sr: 'dataset' })).toBe(
      "the model's input 'sr' is mapped to the dataset, which already feeds 'input'",
    );
    expect(feedsProblem(vad, { input: 0, state: 'dataset', sr: 1 })).toBe(
      "the model's input 'state' takes float32 [2×batch×4]; the dataset gives float32 [rows×features]",
    );
    expect(feedsProblem(vad, { input: 'dataset', state: 0 })).toMatch(/'sr' is not fed/);
  });

  describe('from the tensor port', () => {
    /** A `data.tensor` array as it arrives: float32, row-major, with its shape. */
    const array = (dims: number[], values: number[]): PortTensor => ({
      name: 'frames.npy',
      dims,
      data: Float32Array.from(values),
    });

    it('feeds a float32 input the array as it is, and fills the state to the batch it binds', () => {
      const tensor = array([4, 3], [...Array(12).keys()]);
      const plan = planFeeds(vad, { input: 'tensor', state: 0, sr: 16000 }, null, {
        tensor: tensor,
      });
      expect(plan.tensors).toEqual({ input: 'tensor' });
      expect(plan.dataset).toBeNull();
      expect(plan.dims).toEqual({ batch: 4 });
      expect(plan.constants.input).toBeUndefined();
      expect(plan.constants.state!.dims).toEqual([2, 4, 4]);
    });

    it('feeds it beside the dataset, which binds the batch the tensor must agree with', () => {
      const state = array([2, 5, 4], Array<number>(40).fill(0.5));
      const plan = planFeeds(vad, { input: 'dataset', state: 'tensor', sr: 1 }, rows, {
        tensor: state,
      });
      expect(plan).toMatchObject({
        dataset: 'input',
        tensors: { state: 'tensor' },
        dims: { batch: 5 },
      });
      const short = array([2, 3, 4], Array<number>(24).fill(0));
      expect(
        refusal(() =>
          planFeeds(vad, { input: 'dataset', state: 'tensor', sr: 1 }, rows, { tensor: short }),
        ),
      ).toEqual({
        code: 'model-feed',
        message:
          "the model's input 'state' takes float32 [2×batch×4]; dimension 1 ('batch') is 5 as input 'input' has it, the tensor frames.npy [2×3×4] has 3",
      });
    });

    it('names the input and the dimension of the array that does not fit', () => {
      const wide = array([4, 5], Array<number>(20).fill(0));
      expect(
        refusal(() => planFeeds(vad, { input: 'tensor', state: 0, sr: 1 }, null, { tensor: wide }))
          .message,
      ).toBe(
        "the model's input 'input' takes float32 [batch×3]; dimension 1 is 3, the tensor frames.npy [4×5] has 5",
      );
      const flat = array([12], Array<number>(12).fill(0));
      expect(
        refusal(() => planFeeds(vad, { input: 'tensor', state: 0, sr: 1 }, null, { tensor: flat }))
          .message,
      ).toBe(
        "the model's input 'input' takes float32 [batch×3]; the tensor frames.npy [12] has 1 dimension, not 2",
      );
    });

    it('converts the array to an input of another type, value by value, where no value changes', () => {
      const ids: OnnxValueInfo[] = [{ name: 'ids', type: 'int64', shape: ['batch', 2] }];
      const plan = planFeeds(ids, { ids: 'tensor' }, null, { tensor: array([2, 2], [1, 2, 3, 4]) });
      expect(plan.tensors).toEqual({});
      expect(plan.constants.ids).toEqual({
        location: 'constant',
        type: 'int64',
        dims: [2, 2],
        values: BigInt64Array.from([1n, 2n, 3n, 4n]),
      });
      expect(
        refusal(() => planFeeds(ids, { ids: 'tensor' }, null, { tensor: array([1, 2], [7, 0.5]) }))
          .message,
      ).toBe(
        "the model's input 'ids' takes int64 [batch×2]; the tensor frames.npy (float32 [1×2]) has element 1 = 0.5, not an int64 (a whole number from −2^63 to 2^63 − 1)",
      );
    });

    it('feeds an int64 array to an int64 input exactly, past 2^53', () => {
      const ids: OnnxValueInfo[] = [{ name: 'ids', type: 'int64', shape: [3] }];
      const big = 2n ** 53n + 1n; // no double holds it
      const exact: PortTensor = {
        name: 'ids.npy',
        dtype: 'int64',
        dims: [3],
        data: BigInt64Array.from([big, -big, 2n ** 63n - 1n]),
      };
      const fed = planFeeds(ids, { ids: 'tensor' }, null, { tensor: exact }).constants.ids!;
      expect(fed.type).toBe('int64');
      expect(fed.values).toBeInstanceOf(BigInt64Array);
      expect(fed.values).toEqual(BigInt64Array.from([big, -big, 2n ** 63n - 1n]));
      // A copy: the array on the edge stays whole when the feed's buffer is handed on.
      expect(fed.values).not.toBe(exact.data);
    });

    it('refuses a conversion that would change a value, naming the input, its type and the array’s', () => {
      const ids: OnnxValueInfo[] = [{ name: 'sr', type: 'int64', shape: [] }];
      const rate = (dtype: PortTensor['dtype'], data: PortTensor['data']): PortTensor => ({
        name: 'rate.npy',
        dtype,
        dims: [],
        data,
      });
      expect(
        refusal(() =>
          planFeeds(ids, { sr: 'tensor' }, null, {
            tensor: rate('float64', Float64Array.of(16000.5)),
          }),
        ).message,
      ).toBe(
        "the model's input 'sr' takes int64 []; the tensor rate.npy (float64 []) has element 0 = 16000.5, not an int64 (a whole number from −2^63 to 2^63 − 1)",
      );
      // A whole float64 is an int64 exactly; a uint64 past 2^63 is not.
      expect(
        planFeeds(ids, { sr: 'tensor' }, null, { tensor: rate('float64', Float64Array.of(16000)) })
          .constants.sr!.values,
      ).toEqual(BigInt64Array.of(16000n));
      expect(
        refusal(() =>
          planFeeds(ids, { sr: 'tensor' }, null, {
            tensor: rate('uint64', BigUint64Array.of(2n ** 63n)),
          }),
        ).message,
      ).toBe(
        "the model's input 'sr' takes int64 []; the tensor rate.npy (uint64 []) has element 0 = 9223372036854775808, beyond int64 (−2^63 to 2^63 − 1)",
      );
      // float32 holds integers up to 2^24 exactly: an int32 past that is refused, not rounded.
      const counts: PortTensor = {
        name: 'counts.npy',
        dtype: 'int32',
        dims: [1, 3],
        data: Int32Array.of(1, 2 ** 24, 2 ** 24 + 1),
      };
      expect(
        refusal(() =>
          planFeeds(vad, { input: 'tensor', state: 0, sr: 1 }, null, { tensor: counts }),
        ).message,
      ).toBe(
        "the model's input 'input' takes float32 [batch×3]; the tensor counts.npy (int32 [1×3]) has element 2 = 16777217, not a float32 exactly (it would be rounded to 16777216)",
      );
      // NumPy's default float64 rounds into a float32 input, as astype would; past float32's range it is refused.
      const wide: PortTensor = { ...counts, dtype: 'float64', data: Float64Array.of(0.1, 2, 1e39) };
      expect(
        refusal(() => planFeeds(vad, { input: 'tensor', state: 0, sr: 1 }, null, { tensor: wide }))
          .message,
      ).toBe(
        "the model's input 'input' takes float32 [batch×3]; the tensor counts.npy (float64 [1×3]) has element 2 = 1e+39, beyond float32’s range",
      );
      const tenth = { ...wide, data: Float64Array.of(0.1, 2, 3) };
      expect(
        planFeeds(vad, { input: 'tensor', state: 0, sr: 1 }, null, { tensor: tenth }).constants
          .input!.values,
      ).toEqual([0.1, 2, 3]);
      const small = { ...counts, data: Int32Array.of(1, 2, -3) };
      expect(
        planFeeds(vad, { input: 'tensor', state: 0, sr: 1 }, null, { tensor: small }).constants
          .input,
      ).toMatchObject({ type: 'float32', dims: [1, 3], values: [1, 2, -3] });
      // A bool array feeds a bool input; a uint8 of 2 cannot.
      const flags: OnnxValueInfo[] = [{ name: 'mask', type: 'bool', shape: [2] }];
      const mask = (dtype: PortTensor['dtype'], ...v: number[]): PortTensor => ({
        name: 'mask.npy',
        dtype,
        dims: [2],
        data: Uint8Array.from(v),
      });
      expect(
        planFeeds(flags, { mask: 'tensor' }, null, { tensor: mask('bool', 1, 0) }).constants.mask!
          .values,
      ).toEqual([1, 0]);
      expect(
        refusal(() => planFeeds(flags, { mask: 'tensor' }, null, { tensor: mask('uint8', 1, 2) }))
          .message,
      ).toBe(
        "the model's input 'mask' takes bool [2]; the tensor mask.npy (uint8 [2]) has element 1 = 2, not a bool (0 or 1)",
      );
    });

    it('feeds several inputs, each from its own tensor port, in its own type', () => {
      const rate: PortTensor = {
        name: 'rate.npy',
        dtype: 'int64',
        dims: [],
        data: BigInt64Array.of(16000n),
      };
      const frames = array([4, 3], [...Array(12).keys()]);
      const plan = planFeeds(vad, { input: 'tensor', state: 0, sr: 'tensor2' }, null, {
        tensor: frames,
        tensor2: rate,
      });
      expect(plan.tensors).toEqual({ input: 'tensor' });
      expect(plan.constants.sr).toEqual({
        location: 'constant',
        type: 'int64',
        dims: [],
        values: BigInt64Array.of(16000n),
      });
      expect(plan.constants.state!.dims).toEqual([2, 4, 4]);
      // Each port's shape is checked for its own input.
      const twoRates = { ...rate, dims: [2], data: BigInt64Array.of(1n, 2n) };
      expect(
        refusal(() =>
          planFeeds(vad, { input: 'tensor', state: 0, sr: 'tensor2' }, null, {
            tensor: frames,
            tensor2: twoRates,
          }),
        ).message,
      ).toBe(
        "the model's input 'sr' takes int64 []; the tensor rate.npy [2] has 1 dimension, not 0",
      );
      expect(
        refusal(() =>
          planFeeds(vad, { input: 'tensor', state: 0, sr: 'tensor4' }, null, { tensor: frames }),
        ).message,
      ).toBe(
        "the model's input 'sr' is mapped to the tensor on port 'tensor4', but no tensor is wired to the node's 'tensor4' port",
      );
      expect(parseInputMap('{"sr": "tensor3"}')).toEqual({ sr: 'tensor3' });
      expect(() => parseInputMap('{"sr": "tensor5"}')).toThrow(/got "tensor5"/);
    });

    it('refuses a tensor mapped with none wired, or mapped to two inputs', () => {
      expect(
        refusal(() => planFeeds(vad, { input: 'tensor', state: 0, sr: 1 }, null)).message,
      ).toBe(
        "the model's input 'input' is mapped to the tensor, but no tensor is wired to the node's 'tensor' port",
      );
      expect(feedsProblem(vad, { input: 'tensor', state: 'tensor', sr: 1 })).toBe(
        "the model's input 'state' is mapped to the tensor, which already feeds 'input'",
      );
    });

    it('tells the inspector nothing the array may fix before it is read', () => {
      // The state's batch comes from the array, not read yet: no complaint.
      expect(feedsProblem(vad, { input: 'tensor', state: 0, sr: 16000 })).toBeNull();
      expect(feedsProblem(vad, { input: 'tensor', state: 0, sr: 1.5 })).toMatch(/not an int64/);
      expect(parseInputMap('{"input": "tensor"}')).toEqual({ input: 'tensor' });
    });
  });
});

describe('a wired tensor’s shape, told before a run', () => {
  const input: OnnxValueInfo = { name: 'input', type: 'float32', shape: ['batch', 2] };
  it('fits where the run would feed it, symbolic dims taking any size', () => {
    expect(tensorShapeProblem(input, [3, 2], 'the tensor rows.npy')).toBeNull();
    expect(tensorShapeProblem(input, [1, 2], 'the tensor rows.npy')).toBeNull();
    expect(tensorShapeProblem({ ...input, shape: null }, [7], 'the tensor x.npy')).toBeNull();
  });
  it('names the input, the array and what does not fit, as the run would', () => {
    expect(tensorShapeProblem(input, [3, 4], 'the tensor rows.npy')).toBe(
      "the model's input 'input' takes float32 [batch×2]; dimension 1 is 2, the tensor rows.npy [3×4] has 4",
    );
    expect(
      tensorShapeProblem({ name: 'sr', type: 'int64', shape: [] }, [2], 'the tensor pair.npy'),
    ).toMatch(
      /^the model's input 'sr' takes int64 \[\].*; the tensor pair\.npy \[2\] has 1 dimension, not 0$/,
    );
  });
});

/**
 * `data.tensor`: an array from a NumPy file the person brings — one `.npy`,
 * or one array of an `.npz` — picked in the inspector and kept by digest.
 * It is read in the engine (`arrays/npy.ts`: any byte order, C or Fortran
 * order) into a tensor of the file's own element type, row-major (an int64
 * array as bigints, exactly), which `model.onnx` feeds to a model input as
 * it is shaped (a tensor port), converted to the input's type only where no
 * value changes, or runs over as a sequence (its `samples` port).
 */
import { readArrayFile } from '../arrays/array-file';
import { defineNodeKind } from '../catalog/kind';
import type { TensorValue } from '../catalog/values';
import { FlowbenchError } from '../errors';

export const dataTensor = defineNodeKind({
  kind: 'data.tensor',
  // 2: the array keeps its element type (int64 exactly, bool, float16 …), no longer float32.
  version: 2,
  cache: 'pure',
  title: 'NumPy array',
  category: 'data',
  description:
    'A tensor from a NumPy .npy file or one array of an .npz: numbers or bools of any byte order, C or Fortran order, each kept in its own type (int64 exactly).',
  params: {
    file: {
      type: 'file',
      accept: '.npy,.npz',
      default: '',
      description: 'The .npy or .npz file (picked in the inspector; the flow keeps its digest).',
    },
    array: {
      type: 'string',
      default: '',
      description: 'In an .npz, the array to read (its name without .npy); empty: the first.',
    },
  },
  inputs: [],
  outputs: [
    {
      name: 'tensor',
      type: 'tensor',
      description:
        'The array in its own element type (float32, int64, bool …), row-major, with its shape.',
    },
  ],
  async execute(ctx) {
    const { file: digest, array } = ctx.params;
    if (digest === '')
      throw new FlowbenchError('node-input', {
        problem: "no array file: pick a .npy or .npz file for param 'file' in the inspector",
      });
    const file = await ctx.readFile(digest);
    const { name, array: read, arrays } = readArrayFile(file, array);
    if (arrays !== null)
      ctx.log(
        `${file.name}: arrays ${arrays.join(', ')}; read ${name.slice(file.name.length + 1)}`,
      );
    ctx.log(`${name}: ${read.descr} (${read.dims.join(', ')}) as ${read.dtype}`);
    const tensor: TensorValue = {
      kind: 'tensor',
      name,
      dtype: read.dtype,
      data: read.data,
      dims: read.dims,
    };
    ctx.emit('tensor', tensor);
  },
});

/**
 * `data.tensor`: an array from a NumPy file the person brings — one `.npy`,
 * or one array of an `.npz` — picked in the inspector and kept by digest.
 * It is read in the engine (`arrays/npy.ts`: any byte order, C or Fortran
 * order) into a float32 tensor, row-major, which `model.onnx` feeds to a
 * model input as it is shaped (its `tensor` port) or runs over as a
 * sequence (its `samples` port).
 */
import { readNpy, readNpz } from '../arrays/npy';
import { defineNodeKind } from '../catalog/kind';
import type { TensorValue } from '../catalog/values';
import { FlowbenchError } from '../errors';

/** A zip archive's first bytes (`PK\x03\x04`): an `.npz`. */
const isZip = (bytes: Uint8Array) =>
  bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;

export const dataTensor = defineNodeKind({
  kind: 'data.tensor',
  version: 1,
  cache: 'pure',
  title: 'NumPy array',
  category: 'data',
  description:
    'A tensor from a NumPy .npy file or one array of an .npz: numbers or bools of any byte order, C or Fortran order, read as float32.',
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
      description: 'The array as float32, row-major, with its shape.',
    },
  ],
  async execute(ctx) {
    const { file: digest, array } = ctx.params;
    if (digest === '')
      throw new FlowbenchError('node-input', {
        problem: "no array file: pick a .npy or .npz file for param 'file' in the inspector",
      });
    const file = await ctx.readFile(digest);
    let name = file.name;
    let read;
    if (isZip(file.bytes)) {
      const arrays = readNpz(file.bytes, file.name);
      const picked = array === '' ? [...arrays.keys()][0]! : array;
      read = arrays.get(picked);
      if (read === undefined)
        throw new FlowbenchError('node-input', {
          problem: `param 'array': ${file.name} has no array '${picked}'; it has ${[...arrays.keys()].join(', ')}`,
        });
      ctx.log(`${file.name}: arrays ${[...arrays.keys()].join(', ')}; read ${picked}`);
      name = `${file.name}/${picked}`;
    } else read = readNpy(file.bytes, file.name);
    ctx.log(`${name}: ${read.descr} (${read.dims.join(', ')}) as float32`);
    const tensor: TensorValue = { kind: 'tensor', name, data: read.data, dims: read.dims };
    ctx.emit('tensor', tensor);
  },
});

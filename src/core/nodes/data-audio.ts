/**
 * `data.audio`: a sequence of samples from a WAV file the person brings,
 * picked in the inspector and kept by digest like a table or a model. The
 * file is decoded in the engine (`audio/wav.ts`): its channels mixed down to
 * one, resampled to the rate a model wants (a voice-activity detector's 16
 * kHz), and emitted as a one-dimensional float32 tensor that `model.onnx`
 * runs over frame by frame (its `sequence` port).
 */
import { defineNodeKind } from '../catalog/kind';
import type { TensorValue } from '../catalog/values';
import { decodeWav, mixDown, resample } from '../audio/wav';
import { FlowbenchError } from '../errors';

export const dataAudio = defineNodeKind({
  kind: 'data.audio',
  version: 1,
  cache: 'pure',
  title: 'Audio',
  category: 'data',
  description:
    'A sequence of samples from a WAV file (PCM of 8, 16, 24 or 32 bits, or float): channels mixed down to one, resampled to the rate you choose.',
  params: {
    file: {
      type: 'file',
      accept: '.wav',
      default: '',
      description: 'The WAV file (picked in the inspector; the flow keeps its digest).',
    },
    rate: {
      type: 'int',
      default: 16000,
      min: 0,
      max: 384000,
      description: 'Samples per second to resample to; 0: as recorded.',
    },
  },
  inputs: [],
  outputs: [
    {
      name: 'samples',
      type: 'tensor',
      description: 'The mixed-down samples in [-1, 1), float32 [samples], at `rate`.',
    },
    { name: 'rate', type: 'number', description: 'Samples per second of the sequence.' },
  ],
  async execute(ctx) {
    const { file: digest, rate } = ctx.params;
    if (digest === '')
      throw new FlowbenchError('node-input', {
        problem: "no audio file: pick a .wav file for param 'file' in the inspector",
      });
    const file = await ctx.readFile(digest);
    const wav = decodeWav(file.bytes, file.name);
    const to = rate === 0 ? wav.sampleRate : rate;
    const data = resample(mixDown(wav.samples), wav.sampleRate, to);
    const seconds = data.length / to;
    ctx.log(
      `${file.name}: ${wav.channels} channel${wav.channels === 1 ? '' : 's'} of ${wav.bits}-bit ${wav.encoding} at ${wav.sampleRate} Hz` +
        `${wav.channels > 1 ? ', mixed down' : ''}${to !== wav.sampleRate ? `, resampled to ${to} Hz` : ''}: ` +
        `${data.length} samples (${seconds.toFixed(2)} s)`,
    );
    const samples: TensorValue = {
      kind: 'tensor',
      name: file.name,
      data,
      dims: [data.length],
      sampleRate: to,
    };
    ctx.emit('samples', samples);
    ctx.emit('rate', to);
  },
});

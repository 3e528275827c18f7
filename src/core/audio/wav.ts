/**
 * WAV files read into one sequence of float samples: the RIFF chunks walked
 * to `fmt ` and `data` (others, such as `LIST`, skipped, each padded to an
 * even size as RIFF requires), integer PCM of 8 (unsigned), 16, 24 or 32
 * bits and IEEE float of 32 or 64 bits (plain or `WAVE_FORMAT_EXTENSIBLE`)
 * scaled to [-1, 1), channels mixed down to their mean, then resampled.
 *
 * Trade-off: resampling is linear interpolation between neighbouring
 * samples, with no low-pass filter first — exact for a rate kept, smooth
 * for one raised, but a rate lowered keeps some of the content above the new
 * Nyquist frequency as aliasing. Speech models' 16 kHz from 44.1/48 kHz
 * recordings tolerate it; a person who needs better resamples beforehand.
 */
import { FlowbenchError } from '../errors';

/** A decoded WAV file, before mixing and resampling. */
export interface WavFile {
  readonly sampleRate: number;
  readonly channels: number;
  /** `pcm` (integer) or `float`, and the bits per sample. */
  readonly encoding: 'pcm' | 'float';
  readonly bits: number;
  /** Per channel, its samples scaled to [-1, 1). */
  readonly samples: readonly Float32Array[];
}

const PCM = 1;
const FLOAT = 3;
const EXTENSIBLE = 0xfffe;

function refuse(file: string, problem: string): FlowbenchError<'node-input'> {
  return new FlowbenchError('node-input', { problem: `audio file '${file}': ${problem}` });
}

function tag(view: DataView, at: number): string {
  return String.fromCharCode(
    view.getUint8(at),
    view.getUint8(at + 1),
    view.getUint8(at + 2),
    view.getUint8(at + 3),
  );
}

/** One sample's value in [-1, 1) at byte `at`. */
function sampleReader(
  file: string,
  encoding: 'pcm' | 'float',
  bits: number,
): (view: DataView, at: number) => number {
  if (encoding === 'float') {
    if (bits === 32) return (v, at) => v.getFloat32(at, true);
    if (bits === 64) return (v, at) => v.getFloat64(at, true);
    throw refuse(file, `float samples of ${bits} bits; expected 32 or 64`);
  }
  switch (bits) {
    case 8: // unsigned, 128 is silence
      return (v, at) => (v.getUint8(at) - 128) / 128;
    case 16:
      return (v, at) => v.getInt16(at, true) / 0x8000;
    case 24:
      return (v, at) => {
        const u = v.getUint8(at) | (v.getUint8(at + 1) << 8) | (v.getUint8(at + 2) << 16);
        return ((u << 8) >> 8) / 0x800000; // sign-extend 24 bits
      };
    case 32:
      return (v, at) => v.getInt32(at, true) / 0x80000000;
    default:
      throw refuse(file, `PCM samples of ${bits} bits; expected 8, 16, 24 or 32`);
  }
}

/** Decodes a WAV file; throws `node-input` naming the file and what is wrong with it. */
export function decodeWav(bytes: Uint8Array, file: string): WavFile {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 12 || tag(view, 0) !== 'RIFF' || tag(view, 8) !== 'WAVE')
    throw refuse(
      file,
      bytes.byteLength >= 4 && tag(view, 0) === 'RIFX'
        ? 'a big-endian (RIFX) WAV file, which is not read; convert it to little-endian RIFF'
        : 'not a WAV file (no RIFF/WAVE header)',
    );
  let format: {
    encoding: 'pcm' | 'float';
    channels: number;
    rate: number;
    bits: number;
    block: number;
  } | null = null;
  let data: { at: number; size: number } | null = null;
  for (let at = 12; at + 8 <= bytes.byteLength;) {
    const id = tag(view, at);
    const size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (id === 'fmt ') {
      if (size < 16) throw refuse(file, `its fmt chunk has ${size} bytes; expected at least 16`);
      let code = view.getUint16(body, true);
      if (code === EXTENSIBLE && size >= 26) code = view.getUint16(body + 24, true); // the sub-format GUID's first field
      if (code !== PCM && code !== FLOAT)
        throw refuse(file, `audio format ${code}; expected PCM (1) or IEEE float (3)`);
      format = {
        encoding: code === PCM ? 'pcm' : 'float',
        channels: view.getUint16(body + 2, true),
        rate: view.getUint32(body + 4, true),
        block: view.getUint16(body + 12, true),
        bits: view.getUint16(body + 14, true),
      };
    } else if (id === 'data') {
      // A writer that streamed may leave the size unset or too large: read what is there.
      data = { at: body, size: Math.min(size, bytes.byteLength - body) };
      if (format !== null) break;
    }
    at = body + size + (size % 2);
  }
  if (format === null) throw refuse(file, 'no fmt chunk');
  if (data === null) throw refuse(file, 'no data chunk');
  const { encoding, channels, rate, bits } = format;
  if (channels < 1 || rate < 1) throw refuse(file, `${channels} channels at ${rate} Hz`);
  const read = sampleReader(file, encoding, bits);
  const width = Math.ceil(bits / 8);
  const block = Math.max(format.block, width * channels);
  const frames = Math.floor(data.size / block);
  const samples = Array.from({ length: channels }, () => new Float32Array(frames));
  for (let f = 0; f < frames; f++)
    for (let c = 0; c < channels; c++) samples[c]![f] = read(view, data.at + f * block + c * width);
  return { sampleRate: rate, channels, encoding, bits, samples };
}

/** The channels' mean, sample by sample. */
export function mixDown(channels: readonly Float32Array[]): Float32Array {
  const [first, ...rest] = channels;
  if (first === undefined) return new Float32Array(0);
  if (rest.length === 0) return first;
  const out = new Float32Array(first.length);
  for (let i = 0; i < out.length; i++) {
    let sum = first[i]!;
    for (const c of rest) sum += c[i]!;
    out[i] = sum / channels.length;
  }
  return out;
}

/** `samples` at rate `from` as they would be at rate `to`, by linear interpolation (see the module comment). */
export function resample(samples: Float32Array, from: number, to: number): Float32Array {
  if (from === to || samples.length === 0) return samples;
  const length = Math.floor((samples.length * to) / from);
  const out = new Float32Array(length);
  const step = from / to;
  for (let i = 0; i < length; i++) {
    const x = i * step;
    const j = Math.floor(x);
    const t = x - j;
    const a = samples[j]!;
    const b = samples[Math.min(j + 1, samples.length - 1)]!;
    out[i] = a + (b - a) * t;
  }
  return out;
}

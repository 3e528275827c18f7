import { describe, expect, it } from 'vitest';
import { decodeWav, mixDown, resample } from './wav';

/** A chunk: its id, little-endian size, body, and a pad byte when the size is odd. */
function chunk(id: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + body.length + (body.length % 2));
  out.set(new TextEncoder().encode(id));
  new DataView(out.buffer).setUint32(4, body.length, true);
  out.set(body, 8);
  return out;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A WAV file of interleaved `frames` (already encoded), with chunks before `data` as given. */
function wav(options: {
  code: number;
  channels: number;
  rate: number;
  bits: number;
  data: Uint8Array;
  extensibleOf?: number;
  before?: Uint8Array[];
}): Uint8Array {
  const { code, channels, rate, bits } = options;
  const fmt = new Uint8Array(options.extensibleOf === undefined ? 16 : 40);
  const v = new DataView(fmt.buffer);
  const block = channels * Math.ceil(bits / 8);
  v.setUint16(0, code, true);
  v.setUint16(2, channels, true);
  v.setUint32(4, rate, true);
  v.setUint32(8, rate * block, true);
  v.setUint16(12, block, true);
  v.setUint16(14, bits, true);
  if (options.extensibleOf !== undefined) {
    v.setUint16(16, 22, true);
    v.setUint16(18, bits, true);
    v.setUint16(24, options.extensibleOf, true);
  }
  const body = concat([
    new TextEncoder().encode('WAVE'),
    chunk('fmt ', fmt),
    ...(options.before ?? []),
    chunk('data', options.data),
  ]);
  return concat([chunk('RIFF', body)]);
}

function bytesOf(write: (v: DataView) => void, length: number): Uint8Array {
  const out = new Uint8Array(length);
  write(new DataView(out.buffer));
  return out;
}

describe('reading WAV files', () => {
  it('reads 8-bit unsigned stereo PCM, and mixes it down to the channels’ mean', () => {
    const file = decodeWav(
      wav({ code: 1, channels: 2, rate: 8000, bits: 8, data: Uint8Array.from([128, 192, 0, 255]) }),
      'a.wav',
    );
    expect(file).toMatchObject({ sampleRate: 8000, channels: 2, encoding: 'pcm', bits: 8 });
    expect(Array.from(file.samples[0]!)).toEqual([0, -1]);
    expect(Array.from(file.samples[1]!)).toEqual([0.5, 127 / 128]);
    expect(Array.from(mixDown(file.samples))).toEqual([0.25, -1 / 256]);
  });

  it('reads 16-bit PCM past a LIST chunk of odd size (and its pad byte)', () => {
    const data = bytesOf((v) => {
      v.setInt16(0, -32768, true);
      v.setInt16(2, 16384, true);
    }, 4);
    const list = chunk('LIST', new TextEncoder().encode('INFOx')); // 5 bytes: padded to 6
    const file = decodeWav(
      wav({ code: 1, channels: 1, rate: 16000, bits: 16, data, before: [list] }),
      'b.wav',
    );
    expect(Array.from(file.samples[0]!)).toEqual([-1, 0.5]);
  });

  it('reads 24-bit PCM with its sign, and 32-bit PCM', () => {
    // 24-bit: 0x7fffff (largest), 0x800000 (−1), 0xc00000 (−0.5), as 3 little-endian bytes each.
    const d24 = Uint8Array.from([0xff, 0xff, 0x7f, 0x00, 0x00, 0x80, 0x00, 0x00, 0xc0]);
    const s24 = decodeWav(wav({ code: 1, channels: 1, rate: 48000, bits: 24, data: d24 }), 'c.wav');
    expect(Array.from(s24.samples[0]!)).toEqual([Math.fround(0x7fffff / 0x800000), -1, -0.5]);
    const d32 = bytesOf((v) => {
      v.setInt32(0, -(2 ** 31), true);
      v.setInt32(4, 2 ** 30, true);
    }, 8);
    const s32 = decodeWav(wav({ code: 1, channels: 1, rate: 48000, bits: 32, data: d32 }), 'd.wav');
    expect(Array.from(s32.samples[0]!)).toEqual([-1, 0.5]);
  });

  it('reads IEEE float of 32 bits in WAVE_FORMAT_EXTENSIBLE, and of 64 bits', () => {
    const f32 = bytesOf((v) => {
      v.setFloat32(0, 0.25, true);
      v.setFloat32(4, -0.75, true);
    }, 8);
    const a = decodeWav(
      wav({ code: 0xfffe, extensibleOf: 3, channels: 1, rate: 44100, bits: 32, data: f32 }),
      'e.wav',
    );
    expect(a.encoding).toBe('float');
    expect(Array.from(a.samples[0]!)).toEqual([0.25, -0.75]);
    const f64 = bytesOf((v) => v.setFloat64(0, 0.125, true), 8);
    expect(
      Array.from(
        decodeWav(wav({ code: 3, channels: 1, rate: 44100, bits: 64, data: f64 }), 'f.wav')
          .samples[0]!,
      ),
    ).toEqual([0.125]);
  });

  it('refuses what it cannot read, naming the file and the reason', () => {
    expect(() => decodeWav(new TextEncoder().encode('not audio at all'), 'n.wav')).toThrow(
      "audio file 'n.wav': not a WAV file (no RIFF/WAVE header)",
    );
    expect(() =>
      decodeWav(
        wav({ code: 2, channels: 1, rate: 8000, bits: 4, data: new Uint8Array(2) }),
        'adpcm.wav',
      ),
    ).toThrow("audio file 'adpcm.wav': audio format 2; expected PCM (1) or IEEE float (3)");
    expect(() =>
      decodeWav(
        wav({ code: 1, channels: 1, rate: 8000, bits: 12, data: new Uint8Array(4) }),
        'odd.wav',
      ),
    ).toThrow("audio file 'odd.wav': PCM samples of 12 bits; expected 8, 16, 24 or 32");
  });

  it('resamples by linear interpolation: a rate kept is untouched, halved keeps every other sample', () => {
    const ramp = Float32Array.from([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(resample(ramp, 16000, 16000)).toBe(ramp);
    expect(Array.from(resample(ramp, 16000, 8000))).toEqual([0, 2, 4, 6]);
    expect(Array.from(resample(ramp, 8000, 16000))).toEqual([
      0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7,
    ]);
    expect(resample(ramp, 48000, 16000)).toHaveLength(2);
  });
});

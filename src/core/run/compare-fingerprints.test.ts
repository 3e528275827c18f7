import { describe, expect, it } from 'vitest';
import {
  compareFingerprints,
  describeFingerprintDifference,
  describeMissingFingerprint,
} from './compare-fingerprints';
import type { RunFingerprint } from './fingerprint';

const recorded: RunFingerprint = {
  app: { version: '0.1.0', build: 'abc1234' },
  ort: '1.30.0',
  backend: 'wasm',
  adapter: {
    vendor: 'google',
    architecture: 'swiftshader',
    device: '',
    description: 'SwiftShader device (Subzero)',
    fallback: true,
    features: ['float32-filterable', 'shader-f16'],
    limits: { maxBufferSize: 1073741824 },
  },
  browser: {
    userAgent: 'Mozilla/5.0 HeadlessChrome/156.0.0.0',
    brands: [{ brand: 'Chromium', version: '156.0.7390.54' }],
    platform: 'Linux x86 64-bit',
    hardwareConcurrency: 2,
    deviceMemory: 8,
    crossOriginIsolated: true,
  },
};

const describeAll = (a: RunFingerprint | undefined, b: RunFingerprint | undefined) => {
  const comparison = compareFingerprints(a, b);
  if (!comparison.known) throw new Error('expected both fingerprints');
  return comparison.differences.map(describeFingerprintDifference);
};

describe('comparing the fingerprints of a run and its re-run', () => {
  it('finds nothing to say for the same machine, app and browser', () => {
    expect(compareFingerprints(recorded, structuredClone(recorded))).toEqual({
      known: true,
      differences: [],
    });
  });

  it('names each fact that differs, with both values, in the run page order', () => {
    const rerun: RunFingerprint = {
      ...recorded,
      app: { version: '0.2.0', build: 'def5678' },
      backend: 'webgpu',
      browser: { ...recorded.browser, hardwareConcurrency: 16, crossOriginIsolated: false },
    };
    expect(describeAll(recorded, rerun)).toEqual([
      'App version: 0.1.0 when recorded, 0.2.0 in the re-run',
      'Build: abc1234 when recorded, def5678 in the re-run',
      'Backend: wasm when recorded, webgpu in the re-run',
      'CPU threads: 2 when recorded, 16 in the re-run',
      'Cross-origin isolated: yes when recorded, no in the re-run',
    ]);
  });

  it('compares the adapter features as a set, and limits one by one', () => {
    const rerun: RunFingerprint = {
      ...recorded,
      adapter: {
        ...recorded.adapter!,
        features: ['float32-filterable', 'subgroups'],
        limits: { maxBufferSize: 268435456 },
      },
    };
    expect(describeAll(recorded, rerun)).toEqual([
      'WebGPU features: only when recorded: shader-f16; only in the re-run: subgroups',
      'limit maxBufferSize: 1073741824 when recorded, 268435456 in the re-run',
    ]);
  });

  it('says a fact only one side has: an adapter where the other had none', () => {
    const differences = describeAll(recorded, { ...recorded, adapter: null });
    expect(differences[0]).toBe(
      'Adapter: google swiftshader (fallback) when recorded, none in the re-run',
    );
    expect(differences).toContain(
      'Adapter description: SwiftShader device (Subzero) when recorded, — in the re-run',
    );
    expect(differences).toContain(
      'WebGPU features: only when recorded: float32-filterable, shader-f16',
    );
  });

  it('says which side has no fingerprint instead of comparing', () => {
    expect(compareFingerprints(undefined, recorded)).toEqual({
      known: false,
      missing: ['recorded'],
    });
    expect(compareFingerprints(recorded, undefined)).toEqual({ known: false, missing: ['rerun'] });
    expect(describeMissingFingerprint(['recorded'])).toMatch(
      /^The recorded run has no fingerprint/,
    );
    expect(describeMissingFingerprint(['recorded', 'rerun'])).toMatch(/^Neither run has/);
  });
});

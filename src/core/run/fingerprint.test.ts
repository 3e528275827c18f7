import { describe, expect, it } from 'vitest';
import { runFingerprintSchema } from '../records/fingerprint';
import type { AdapterInfo } from '../runtime/tensor-runtime';
import { fingerprintFacts, fingerprintOf, type FingerprintSource } from './fingerprint';

/** Headless Chromium with --enable-unsafe-webgpu, as a worker's navigator reports it. */
const swiftshader: AdapterInfo = {
  vendor: 'google',
  architecture: 'swiftshader',
  isFallbackAdapter: true,
  limits: { maxBufferSize: 1073741824, maxStorageBufferBindingSize: 134217728 },
  details: {
    device: '',
    description: 'SwiftShader device (Subzero)',
    features: ['timestamp-query', 'float32-filterable', 'shader-f16', 'shader-f16'],
    limits: {
      maxBufferSize: 1073741824,
      maxComputeWorkgroupSizeX: 256,
      maxTextureDimension2D: 8192,
    },
  },
};

const chromiumSource: FingerprintSource = {
  app: { version: '0.1.0', build: 'abc1234' },
  ort: '1.30.0',
  backend: 'wasm',
  adapter: swiftshader,
  navigator: {
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/156.0.0.0 Safari/537.36',
    platform: 'Linux x86_64',
    hardwareConcurrency: 2,
    deviceMemory: 8,
    userAgentData: {
      brands: [
        { brand: 'Not;A=Brand', version: '24' },
        { brand: 'HeadlessChrome', version: '156' },
        { brand: 'Chromium', version: '156' },
      ],
      platform: 'Linux',
    },
    highEntropy: {
      fullVersionList: [
        { brand: 'Chromium', version: '156.0.7390.54' },
        { brand: 'Not;A=Brand', version: '24.0.0.0' },
        { brand: 'HeadlessChrome', version: '156.0.7390.54' },
      ],
      platformVersion: '6.1.0',
      architecture: 'x86',
      bitness: '64',
    },
  },
  crossOriginIsolated: true,
};

describe('a run fingerprint from what the engine reports', () => {
  it('keeps the app, onnxruntime, backend, adapter and browser, normalised and valid', () => {
    const fingerprint = fingerprintOf(chromiumSource);
    expect(runFingerprintSchema.safeParse(fingerprint).success).toBe(true);
    expect(fingerprint).toEqual({
      app: { version: '0.1.0', build: 'abc1234' },
      ort: '1.30.0',
      backend: 'wasm',
      adapter: {
        vendor: 'google',
        architecture: 'swiftshader',
        device: '',
        description: 'SwiftShader device (Subzero)',
        fallback: true,
        // Sorted and once each, so one machine's fingerprints are equal.
        features: ['float32-filterable', 'shader-f16', 'timestamp-query'],
        // Only the limits that bound our models.
        limits: { maxBufferSize: 1073741824, maxComputeWorkgroupSizeX: 256 },
      },
      browser: {
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/156.0.0.0 Safari/537.36',
        // Full versions, sorted, with the GREASE brand (noise that changes per release) left out.
        brands: [
          { brand: 'Chromium', version: '156.0.7390.54' },
          { brand: 'HeadlessChrome', version: '156.0.7390.54' },
        ],
        platform: 'Linux 6.1.0 x86 64-bit',
        hardwareConcurrency: 2,
        deviceMemory: 8,
        crossOriginIsolated: true,
      },
    });
  });

  it('falls back to the low-entropy brands and navigator.platform', () => {
    const { highEntropy: _, ...lowEntropy } = chromiumSource.navigator;
    const fingerprint = fingerprintOf({ ...chromiumSource, navigator: lowEntropy });
    expect(fingerprint.browser.brands).toEqual([
      { brand: 'Chromium', version: '156' },
      { brand: 'HeadlessChrome', version: '156' },
    ]);
    expect(fingerprint.browser.platform).toBe('Linux');
    const { userAgentData: _d, ...plain } = lowEntropy;
    expect(fingerprintOf({ ...chromiumSource, navigator: plain }).browser.platform).toBe(
      'Linux x86_64',
    );
  });

  it('records what a browser does not tell as null or empty, never failing', () => {
    // Firefox: no userAgentData, no deviceMemory; a context that is not isolated; no WebGPU.
    const fingerprint = fingerprintOf({
      ...chromiumSource,
      adapter: null,
      navigator: { userAgent: 'Mozilla/5.0 Firefox/140.0', hardwareConcurrency: 'many' },
      crossOriginIsolated: undefined,
    });
    expect(runFingerprintSchema.safeParse(fingerprint).success).toBe(true);
    expect(fingerprint.adapter).toBeNull();
    expect(fingerprint.browser).toEqual({
      userAgent: 'Mozilla/5.0 Firefox/140.0',
      brands: [],
      platform: '',
      hardwareConcurrency: null,
      deviceMemory: null,
      crossOriginIsolated: false,
    });
  });

  it('keeps an adapter whose details were not read, with what it has', () => {
    const { details: _, ...bare } = swiftshader;
    expect(fingerprintOf({ ...chromiumSource, adapter: bare }).adapter).toEqual({
      vendor: 'google',
      architecture: 'swiftshader',
      device: '',
      description: '',
      fallback: true,
      features: [],
      limits: {},
    });
  });
});

describe('a fingerprint as the run page lists it', () => {
  it('says the app version, backend, adapter and cross-origin isolation in words', () => {
    const facts = fingerprintFacts(fingerprintOf(chromiumSource));
    const value = (label: string) => facts.find((f) => f.label === label)?.value;
    expect(value('App version')).toBe('0.1.0');
    expect(value('Build')).toBe('abc1234');
    expect(value('onnxruntime-web')).toBe('1.30.0');
    expect(value('Backend')).toBe('wasm');
    expect(value('Adapter')).toBe('google swiftshader (fallback)');
    expect(value('Browser')).toBe('Chromium 156.0.7390.54, HeadlessChrome 156.0.7390.54');
    expect(value('CPU threads')).toBe('2');
    expect(value('Device memory')).toBe('8 GiB');
    expect(value('Cross-origin isolated')).toBe('yes');
    // The WebGPU details come last, apart.
    expect(facts.filter((f) => f.detail).map((f) => f.label)).toEqual([
      'WebGPU features',
      'limit maxBufferSize',
      'limit maxComputeWorkgroupSizeX',
    ]);
    expect(new Set(facts.map((f) => f.key)).size).toBe(facts.length);
  });

  it('names onnxruntime-node, not onnxruntime-web, for a command-line run on cpu', () => {
    const facts = fingerprintFacts(
      fingerprintOf({ ...chromiumSource, backend: 'cpu', ort: 'onnxruntime-node 1.30.0' }),
    );
    expect(facts.find((f) => f.key === 'ort')).toMatchObject({
      label: 'onnxruntime',
      value: 'onnxruntime-node 1.30.0',
    });
    expect(facts.some((f) => f.label === 'onnxruntime-web')).toBe(false);
  });

  it('says "none" without an adapter and what the browser did not tell', () => {
    const facts = fingerprintFacts(
      fingerprintOf({
        ...chromiumSource,
        adapter: null,
        navigator: {},
        crossOriginIsolated: false,
      }),
    );
    const value = (label: string) => facts.find((f) => f.label === label)?.value;
    expect(value('Adapter')).toBe('none');
    expect(value('Device memory')).toBe('not told by the browser');
    expect(value('Cross-origin isolated')).toBe('no');
    expect(facts.some((f) => f.detail)).toBe(false);
  });
});

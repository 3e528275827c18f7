import { describe, expect, it } from 'vitest';
import { engineFingerprint, readNavigator } from './fingerprint';
import { adapterDetails, engineInfo } from './adapter';

describe("reading the engine's context for a fingerprint", () => {
  it('reads the adapter limits by name, as GPUSupportedLimits keeps them on its prototype', () => {
    class Limits {
      get maxBufferSize() {
        return 1073741824;
      }
      get maxComputeWorkgroupSizeX() {
        return 256;
      }
      get maxTextureDimension2D() {
        return 8192;
      }
    }
    const details = adapterDetails({
      info: { vendor: 'google', architecture: 'swiftshader', description: 'SwiftShader device' },
      features: new Set(['shader-f16', 'timestamp-query']),
      limits: new Limits() as unknown as Record<string, unknown>,
    });
    expect(details).toEqual({
      device: '',
      description: 'SwiftShader device',
      features: ['shader-f16', 'timestamp-query'],
      limits: { maxBufferSize: 1073741824, maxComputeWorkgroupSizeX: 256 },
    });
  });

  it('asks userAgentData for full versions, and keeps the low-entropy brands when refused', async () => {
    const brands = [{ brand: 'Chromium', version: '156' }];
    const answering = await readNavigator({
      userAgent: 'UA',
      hardwareConcurrency: 4,
      userAgentData: {
        brands,
        platform: 'Linux',
        getHighEntropyValues: (hints) =>
          Promise.resolve({ fullVersionList: hints.includes('fullVersionList') ? brands : [] }),
      },
    });
    expect(answering.highEntropy).toEqual({ fullVersionList: brands });
    const refusing = await readNavigator({
      userAgent: 'UA',
      userAgentData: { brands, getHighEntropyValues: () => Promise.reject(new Error('no')) },
    });
    expect(refusing).toEqual({
      userAgent: 'UA',
      platform: undefined,
      hardwareConcurrency: undefined,
      deviceMemory: undefined,
      userAgentData: { brands, platform: undefined },
    });
    expect(await readNavigator(undefined)).toEqual({});
  });

  it("under Node (no build constants, no WebGPU) records 'unknown' builds, never failing", async () => {
    const fingerprint = await engineFingerprint(engineInfo(null), 'auto');
    expect(fingerprint).toMatchObject({
      app: { version: 'unknown', build: 'unknown' },
      ort: 'unknown',
      backend: 'wasm',
      adapter: null,
    });
  });
});

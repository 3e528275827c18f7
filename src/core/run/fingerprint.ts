/**
 * A run's fingerprint from what the engine's context reports (the pure part:
 * the worker reads `navigator` and the adapter, this shapes and normalises
 * it), and the fingerprint as labelled facts — what the run page lists and
 * what a re-run compares.
 *
 * Everything the browser reports is untrusted shape-wise (a field may be
 * missing, or of another type in another browser), so each value is checked
 * and a missing one becomes null or empty, never a throw: a fingerprint must
 * never stop a run. Normalising (features and brands sorted, GREASE brands
 * dropped) makes two fingerprints of the same machine equal field for field.
 */
import type { FingerprintAdapter, FingerprintBrand, RunFingerprint } from '../records/fingerprint';
import { describeAdapter, type AdapterInfo } from '../runtime/tensor-runtime';

export type { RunFingerprint } from '../records/fingerprint';

/**
 * The WebGPU limits a fingerprint keeps: those onnxruntime-web's kernels and
 * our models' buffers run into (buffer sizes, storage bindings, workgroup
 * sizes and storage). A run that fits on one adapter and not on another
 * differs in one of these.
 */
export const fingerprintLimits = [
  'maxBufferSize',
  'maxStorageBufferBindingSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
  'maxComputeWorkgroupSizeZ',
  'maxComputeWorkgroupsPerDimension',
] as const;

/** What the engine's `navigator` says, read as plain data (every field as the browser gave it). */
export interface NavigatorReport {
  readonly userAgent?: unknown;
  readonly platform?: unknown;
  readonly hardwareConcurrency?: unknown;
  readonly deviceMemory?: unknown;
  /** `navigator.userAgentData` (Chromium): its low-entropy fields. */
  readonly userAgentData?: { readonly brands?: unknown; readonly platform?: unknown };
  /** `userAgentData.getHighEntropyValues(…)`'s answer, when the browser gave one. */
  readonly highEntropy?: {
    readonly fullVersionList?: unknown;
    readonly platformVersion?: unknown;
    readonly architecture?: unknown;
    readonly bitness?: unknown;
  };
}

/** Everything a fingerprint is made from. */
export interface FingerprintSource {
  readonly app: { readonly version: string; readonly build: string };
  readonly ort: string;
  readonly backend: RunFingerprint['backend'];
  readonly adapter: AdapterInfo | null;
  readonly navigator: NavigatorReport;
  readonly crossOriginIsolated: unknown;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const positive = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null;

/** "Not A(Brand", "Not/A)Brand" …: a browser's deliberate noise, different per version. */
const GREASE = /not.?a.?brand/i;

function brandsOf(list: unknown): FingerprintBrand[] | null {
  if (!Array.isArray(list)) return null;
  return list
    .filter(
      (item): item is { brand: unknown; version: unknown } =>
        typeof item === 'object' && item !== null,
    )
    .map((item) => ({ brand: text(item.brand), version: text(item.version) }))
    .filter(({ brand }) => brand !== '' && !GREASE.test(brand))
    .sort((a, b) => (a.brand < b.brand ? -1 : a.brand > b.brand ? 1 : 0));
}

function platformOf(report: NavigatorReport): string {
  const high = report.highEntropy ?? {};
  const architecture = text(high.architecture);
  const bitness = text(high.bitness);
  const parts = [
    text(report.userAgentData?.platform) || text(report.platform),
    text(high.platformVersion),
    architecture && bitness ? `${architecture} ${bitness}-bit` : architecture,
  ];
  return parts.filter(Boolean).join(' ');
}

function adapterOf(adapter: AdapterInfo | null): FingerprintAdapter | null {
  if (!adapter) return null;
  const details = adapter.details;
  const limits: Record<string, number> = {};
  for (const name of fingerprintLimits) {
    const value = details?.limits[name];
    if (typeof value === 'number' && Number.isFinite(value)) limits[name] = value;
  }
  return {
    vendor: adapter.vendor,
    architecture: adapter.architecture,
    device: details?.device ?? '',
    description: details?.description ?? '',
    fallback: adapter.isFallbackAdapter,
    features: [...new Set(details?.features ?? [])].sort(),
    limits,
  };
}

/** The fingerprint of a run claimed by an engine whose context reported `source`. */
export function fingerprintOf(source: FingerprintSource): RunFingerprint {
  const report = source.navigator;
  return {
    app: { version: source.app.version, build: source.app.build },
    ort: source.ort,
    backend: source.backend,
    adapter: adapterOf(source.adapter),
    browser: {
      userAgent: text(report.userAgent),
      // Full versions when the browser gave them; its low-entropy major versions otherwise.
      brands:
        brandsOf(report.highEntropy?.fullVersionList) ??
        brandsOf(report.userAgentData?.brands) ??
        [],
      platform: platformOf(report),
      hardwareConcurrency: positive(report.hardwareConcurrency),
      deviceMemory: positive(report.deviceMemory),
      crossOriginIsolated: source.crossOriginIsolated === true,
    },
  };
}

/** One line of a fingerprint as a person reads it. */
export interface FingerprintFact {
  /** Stable across runs: two fingerprints are compared fact by fact on it. */
  readonly key: string;
  readonly label: string;
  readonly value: string;
  /** For a fact that is a set (the adapter's features): its members, compared as a set. */
  readonly items?: readonly string[];
  /** A WebGPU detail (features, limits): listed apart, below the main facts. */
  readonly detail?: true;
}

const NOT_TOLD = 'not told by the browser';

/** The fingerprint as facts, in the order the run page lists them. */
export function fingerprintFacts(fingerprint: RunFingerprint): FingerprintFact[] {
  const { app, adapter, browser } = fingerprint;
  const facts: FingerprintFact[] = [
    { key: 'app.version', label: 'App version', value: app.version },
    { key: 'app.build', label: 'Build', value: app.build },
    // A `cpu` run (the command line's onnxruntime-node) names its package in the value.
    {
      key: 'ort',
      label: fingerprint.backend === 'cpu' ? 'onnxruntime' : 'onnxruntime-web',
      value: fingerprint.ort,
    },
    { key: 'backend', label: 'Backend', value: fingerprint.backend },
    {
      key: 'adapter',
      label: 'Adapter',
      value: adapter
        ? describeAdapter({
            vendor: adapter.vendor,
            architecture: adapter.architecture,
            isFallbackAdapter: adapter.fallback,
          })
        : 'none',
    },
  ];
  if (adapter) {
    facts.push(
      { key: 'adapter.device', label: 'Adapter device', value: adapter.device || '—' },
      {
        key: 'adapter.description',
        label: 'Adapter description',
        value: adapter.description || '—',
      },
    );
  }
  facts.push(
    {
      key: 'browser',
      label: 'Browser',
      value: browser.brands.map((b) => `${b.brand} ${b.version}`).join(', ') || NOT_TOLD,
    },
    { key: 'browser.userAgent', label: 'User agent', value: browser.userAgent || NOT_TOLD },
    { key: 'browser.platform', label: 'Platform', value: browser.platform || NOT_TOLD },
    {
      key: 'browser.hardwareConcurrency',
      label: 'CPU threads',
      value: browser.hardwareConcurrency === null ? NOT_TOLD : String(browser.hardwareConcurrency),
    },
    {
      key: 'browser.deviceMemory',
      label: 'Device memory',
      value: browser.deviceMemory === null ? NOT_TOLD : `${browser.deviceMemory} GiB`,
    },
    {
      key: 'browser.crossOriginIsolated',
      label: 'Cross-origin isolated',
      value: browser.crossOriginIsolated ? 'yes' : 'no',
    },
  );
  if (adapter) {
    facts.push({
      key: 'adapter.features',
      label: 'WebGPU features',
      value: adapter.features.join(', ') || 'none',
      items: adapter.features,
      detail: true,
    });
    for (const [name, value] of Object.entries(adapter.limits))
      facts.push({
        key: `adapter.limits.${name}`,
        label: `limit ${name}`,
        value: String(value),
        detail: true,
      });
  }
  return facts;
}

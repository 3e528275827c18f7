/**
 * The public file formats as docs/formats.md states them, written out here on
 * purpose rather than imported from the app: the e2e suite checks the files a
 * person exchanges, not the app's own idea of them.
 */

export interface FlowFile {
  /** `/2` only when a node is bypassed; a `/1` reader would run that node. */
  format: 'flowbench.flow/1' | 'flowbench.flow/2';
  name: string;
  description?: string;
  inputs: { name: string; type: string; default?: unknown }[];
  outputs: string[];
  nodes: {
    id: string;
    kind: string;
    params: Record<string, unknown>;
    position: { x: number; y: number };
    bypass?: true;
  }[];
  edges: { from: string; to: string }[];
  /** Titled frames around nodes (layout only); absent when the flow has none. */
  groups?: { id: string; title: string; nodes: string[]; color?: string }[];
}

/** A metric point: `[step, value, ts]`, or `[step, null, ts, "NaN" | …]` for a non-finite value. */
export type MetricPoint = [number, number | null, number, string?];

export interface RunFile {
  format: string;
  run: {
    id: string;
    flow: string;
    params: Record<string, unknown>;
    seed: number;
    status: string;
    statusReason: string;
    engine: {
      backend: string;
      adapter: string;
      vendor?: string;
      architecture?: string;
      fallback?: boolean;
    } | null;
    result: Record<string, unknown>;
    /** What the run ran on; absent on a run from before fingerprints. */
    fingerprint?: {
      app: { version: string; build: string };
      ort: string;
      backend: string;
      adapter: {
        vendor: string;
        architecture: string;
        device: string;
        description: string;
        fallback: boolean;
        features: string[];
        limits: Record<string, number>;
      } | null;
      browser: {
        userAgent: string;
        brands: { brand: string; version: string }[];
        platform: string;
        hardwareConcurrency: number | null;
        deviceMemory: number | null;
        crossOriginIsolated: boolean;
      };
    };
  };
  flow: FlowFile;
  nodes: {
    node: string;
    status: string;
    error: string;
    cachedFrom?: { runId: string; node: string };
  }[];
  metrics: Record<string, MetricPoint[]>;
  artifacts: { name: string; node: string; digest: string; size: number; mediaType: string }[];
}

/** The number a metric point stands for, its non-finite encoding undone (`-0` included). */
export function pointValue(point: MetricPoint): number {
  const [, value, , special] = point;
  if (value !== null) return value;
  switch (special) {
    case 'NaN':
      return NaN;
    case 'Infinity':
      return Infinity;
    case '-Infinity':
      return -Infinity;
    case '-0':
      return -0;
    default:
      throw new Error(`point ${JSON.stringify(point)} has no value and no encoding`);
  }
}

/** A series' steps: a record keeps each metric's points once each, counted 0, 1, 2 … */
export function pointSteps(points: readonly MetricPoint[]): number[] {
  return points.map(([step]) => step);
}

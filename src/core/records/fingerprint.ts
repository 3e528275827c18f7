/**
 * A run's fingerprint: what it ran on, recorded when an engine claims it —
 * the app build, onnxruntime-web, the backend and WebGPU adapter, and what
 * the browser says of itself and the machine. A run made by the command line
 * fills the same fields with what Node says (cli/fingerprint.ts): Node as
 * the "browser", the OS, architecture and CPU model as its platform. Two runs of the same flow,
 * params and seed that do not reproduce are told apart by it.
 *
 * It is part of the run record (`run.fingerprint`) and travels in run files.
 * The field is optional, not backfilled: a run from before fingerprints, or
 * one not yet claimed, has none, and every reader must say so anyway; and a
 * `flowbench.run/2` reader from before it ignores it (zod drops keys it does
 * not know), so files stay `/2`. Values are what the browser reported, or
 * null where it reports nothing (`deviceMemory` outside Chromium).
 */
import { z } from '../schema';
import type { Backend } from '../runtime/tensor-runtime';

/** A browser backend, or `cpu`: onnxruntime-node's native CPU provider (`flowbench run --backend cpu`). */
const backend = z.enum(['webgpu', 'wasm', 'cpu'] satisfies (Backend | 'cpu')[]);

export const fingerprintAdapterSchema = z.object({
  vendor: z.string(),
  architecture: z.string(),
  device: z.string(),
  description: z.string(),
  /** A software adapter (SwiftShader) or one the browser marks as a fallback. */
  fallback: z.boolean(),
  /** Every feature the adapter offers, sorted. */
  features: z.array(z.string()),
  /** The limits that bound our models' buffers and kernels (`fingerprintLimits`), by WebGPU name. */
  limits: z.record(z.string(), z.number()),
});
export type FingerprintAdapter = z.output<typeof fingerprintAdapterSchema>;

export const fingerprintBrandSchema = z.object({ brand: z.string(), version: z.string() });
export type FingerprintBrand = z.output<typeof fingerprintBrandSchema>;

export const runFingerprintSchema = z.object({
  app: z.object({
    /** package.json's version. */
    version: z.string(),
    /** The build: its commit (with `-dirty` and the build time when the tree had changes), or its build time. */
    build: z.string(),
  }),
  /**
   * onnxruntime-web's version, as bundled into the app (or as the command
   * line loads it for `wasm`); `onnxruntime-node <version>` for a `cpu` run.
   */
  ort: z.string(),
  /** The backend the run's choice resolved to on this engine. */
  backend,
  /** The engine's WebGPU adapter; null without one. */
  adapter: z.nullable(fingerprintAdapterSchema),
  browser: z.object({
    userAgent: z.string(),
    /** `navigator.userAgentData`'s brands, full versions where given; empty where the browser has none. */
    brands: z.array(fingerprintBrandSchema),
    /** The OS, as `userAgentData` (with its version) or `navigator.platform` says. */
    platform: z.string(),
    /** Logical processors (`navigator.hardwareConcurrency`). */
    hardwareConcurrency: z.nullable(z.number()),
    /** GiB, as the browser rounds it (`navigator.deviceMemory`). */
    deviceMemory: z.nullable(z.number()),
    /** Whether the page was cross-origin isolated (SharedArrayBuffer, WASM threads). */
    crossOriginIsolated: z.boolean(),
  }),
});
export type RunFingerprint = z.output<typeof runFingerprintSchema>;

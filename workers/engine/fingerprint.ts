/**
 * The engine's side of a run's fingerprint: what this worker's context says
 * of the app build, the browser and the machine, read once per engine, and
 * the fingerprint of each run it claims (core/run/fingerprint.ts shapes it).
 *
 * The app's version, its build and onnxruntime-web's version are fixed when
 * the app is built (vite.config.ts `define`s them), so the fingerprint names
 * the code that ran, never a path of the machine that built it. The
 * browser's report is read once: nothing in it changes while a page lives,
 * and `getHighEntropyValues` is a promise the engine need not wait on twice.
 */
import type { BackendChoice, EngineInfo } from '../../src/core/runtime/tensor-runtime';
import {
  fingerprintOf,
  type NavigatorReport,
  type RunFingerprint,
} from '../../src/core/run/fingerprint';

// Defined by vite.config.ts at build time; absent under Vitest, which reads no Vite config.
declare const __FLOWBENCH_VERSION__: string | undefined;
declare const __FLOWBENCH_BUILD__: string | undefined;
declare const __FLOWBENCH_ORT_VERSION__: string | undefined;

/** The app and onnxruntime-web this build holds. */
export const buildInfo = {
  app: {
    version: typeof __FLOWBENCH_VERSION__ === 'string' ? __FLOWBENCH_VERSION__ : 'unknown',
    build: typeof __FLOWBENCH_BUILD__ === 'string' ? __FLOWBENCH_BUILD__ : 'unknown',
  },
  ort: typeof __FLOWBENCH_ORT_VERSION__ === 'string' ? __FLOWBENCH_ORT_VERSION__ : 'unknown',
} as const;

/** The `navigator` fields a fingerprint reads (Chromium's `userAgentData` included). */
interface FingerprintNavigator {
  readonly userAgent?: unknown;
  readonly platform?: unknown;
  readonly hardwareConcurrency?: unknown;
  readonly deviceMemory?: unknown;
  readonly userAgentData?: {
    readonly brands?: unknown;
    readonly platform?: unknown;
    getHighEntropyValues?(hints: string[]): Promise<Record<string, unknown>>;
  };
}

/** The high-entropy values a fingerprint keeps: full browser versions and the OS. */
const HINTS = ['fullVersionList', 'platformVersion', 'architecture', 'bitness'];

/** What `nav` says of the browser and the machine, as plain data; never rejects. */
export async function readNavigator(
  nav: FingerprintNavigator | undefined,
): Promise<NavigatorReport> {
  if (!nav) return {};
  const data = nav.userAgentData;
  let highEntropy: NavigatorReport['highEntropy'];
  try {
    highEntropy = await data?.getHighEntropyValues?.(HINTS);
  } catch {
    // A browser may refuse the hints: the low-entropy brands are kept instead.
  }
  return {
    userAgent: nav.userAgent,
    platform: nav.platform,
    hardwareConcurrency: nav.hardwareConcurrency,
    deviceMemory: nav.deviceMemory,
    ...(data && { userAgentData: { brands: data.brands, platform: data.platform } }),
    ...(highEntropy && { highEntropy }),
  };
}

let report: Promise<NavigatorReport> | null = null;

/** The fingerprint of a run this engine claims with backend choice `choice`. */
export async function engineFingerprint(
  info: EngineInfo,
  choice: BackendChoice,
): Promise<RunFingerprint> {
  report ??= readNavigator((globalThis as { navigator?: FingerprintNavigator }).navigator);
  return fingerprintOf({
    ...buildInfo,
    // As the run's engine line says: `auto` is what this engine resolves it to.
    backend: choice === 'auto' ? info.backend : choice,
    adapter: info.adapter,
    navigator: await report,
    crossOriginIsolated: (globalThis as { crossOriginIsolated?: unknown }).crossOriginIsolated,
  });
}

/**
 * What differs between the fingerprints of a recorded run and its re-run:
 * when a series does not reproduce, the first question is whether the two
 * ran on the same app build, onnxruntime-web, backend, adapter and browser.
 *
 * Fingerprints are compared fact by fact (`fingerprintFacts`), so the
 * differences read exactly as the run page lists the facts, and a fact only
 * one side has (an adapter's device where the other had no adapter) is a
 * difference too. A set-valued fact (the adapter's features) is compared as
 * a set and says what only one side had.
 */
import { fingerprintFacts, type FingerprintFact, type RunFingerprint } from './fingerprint';

/** One fact that differs; `'—'` for a side that lacks it. */
export interface FingerprintDifference {
  readonly key: string;
  readonly label: string;
  readonly recorded: string;
  readonly rerun: string;
  /** For a set-valued fact: the members only one side has. */
  readonly onlyRecorded?: readonly string[];
  readonly onlyRerun?: readonly string[];
}

export type FingerprintComparison =
  /** A side has no fingerprint (it ran before fingerprints, or was never claimed). */
  | { readonly known: false; readonly missing: readonly ('recorded' | 'rerun')[] }
  | { readonly known: true; readonly differences: readonly FingerprintDifference[] };

const ABSENT = '—';

/** The facts of `recorded` and `rerun` that differ, in the run page's order. */
export function compareFingerprints(
  recorded: RunFingerprint | undefined,
  rerun: RunFingerprint | undefined,
): FingerprintComparison {
  if (!recorded || !rerun) {
    const missing: ('recorded' | 'rerun')[] = [];
    if (!recorded) missing.push('recorded');
    if (!rerun) missing.push('rerun');
    return { known: false, missing };
  }
  const before = new Map(fingerprintFacts(recorded).map((f) => [f.key, f]));
  const after = new Map(fingerprintFacts(rerun).map((f) => [f.key, f]));
  const keys = [...new Set([...before.keys(), ...after.keys()])];
  const differences: FingerprintDifference[] = [];
  for (const key of keys) {
    const a = before.get(key);
    const b = after.get(key);
    const difference = differenceOf(key, a, b);
    if (difference) differences.push(difference);
  }
  return { known: true, differences };
}

function differenceOf(
  key: string,
  a: FingerprintFact | undefined,
  b: FingerprintFact | undefined,
): FingerprintDifference | null {
  const label = (a ?? b)!.label;
  const recorded = a?.value ?? ABSENT;
  const rerun = b?.value ?? ABSENT;
  if (a?.items !== undefined || b?.items !== undefined) {
    const left = new Set(a?.items ?? []);
    const right = new Set(b?.items ?? []);
    const onlyRecorded = [...left].filter((item) => !right.has(item));
    const onlyRerun = [...right].filter((item) => !left.has(item));
    if (
      onlyRecorded.length === 0 &&
      onlyRerun.length === 0 &&
      (a === undefined) === (b === undefined)
    )
      return null;
    return { key, label, recorded, rerun, onlyRecorded, onlyRerun };
  }
  return recorded === rerun ? null : { key, label, recorded, rerun };
}

/** One difference in a sentence, e.g. `Backend: wasm when recorded, webgpu in the re-run`. */
export function describeFingerprintDifference(d: FingerprintDifference): string {
  if (d.onlyRecorded !== undefined && d.onlyRerun !== undefined) {
    const parts: string[] = [];
    if (d.onlyRecorded.length > 0) parts.push(`only when recorded: ${d.onlyRecorded.join(', ')}`);
    if (d.onlyRerun.length > 0) parts.push(`only in the re-run: ${d.onlyRerun.join(', ')}`);
    if (parts.length > 0) return `${d.label}: ${parts.join('; ')}`;
  }
  return `${d.label}: ${d.recorded} when recorded, ${d.rerun} in the re-run`;
}

/** Why there is nothing to compare, in a sentence. */
export function describeMissingFingerprint(missing: readonly ('recorded' | 'rerun')[]): string {
  const which =
    missing.length === 2
      ? 'Neither run has'
      : missing[0] === 'recorded'
        ? 'The recorded run has'
        : 'The re-run has';
  return `${which} no fingerprint (it ran before Flowbench recorded what runs ran on), so what they ran on cannot be compared.`;
}

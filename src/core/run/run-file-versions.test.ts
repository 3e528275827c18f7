/**
 * Importing a run file of every earlier format version: each captured file
 * (`src/db/fixtures/run-v<n>.run.json`, a real run's Export run) imports
 * and comes out valid against the current record schemas, migrated by the
 * same functions that upgrade stored rows.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeIssues, issuesFromZod } from '../flow/issues';
import { fromRunExport, toRunExport, type RunRecord } from './export';
import { z } from '../schema';
import { artifactRowSchema } from '../records/artifact';
import type { RunFingerprint } from '../records/fingerprint';
import { storedRecords } from '../records/index';
import { intervalRowSchema } from '../records/interval';
import { metricRowSchema } from '../records/metric';
import { runRecord, runRowSchema } from '../records/run';
import {
  RUN_FORMAT,
  runFileVersion,
  upgradeRunFile,
  type RunFileRecords,
} from '../records/run-file';
import { runNodeRowSchema } from '../records/run-node';

const fixtureDir = new URL('../../db/fixtures/', import.meta.url);
const files = readdirSync(fixtureDir)
  .map((file) => /^run-v(\d+)\.run\.json$/.exec(file))
  .filter((match) => match !== null)
  .map((match) => ({
    version: Number(match[1]),
    text: readFileSync(new URL(match[0], fixtureDir), 'utf8'),
  }))
  .sort((a, b) => a.version - b.version);

type Json = Record<string, unknown> & { run: Record<string, unknown> };
const fileOf = (version: number): Json =>
  JSON.parse(files.find((f) => f.version === version)!.text) as Json;

function imported(input: unknown): RunRecord {
  const result = fromRunExport(input);
  if (!result.ok) throw new Error(describeIssues(result.issues));
  return result.record;
}

function expectValid(schema: z.ZodMiniType, row: unknown, what: string): void {
  const checked = schema.safeParse(row);
  if (!checked.success)
    throw new Error(`${what} is not valid: ${describeIssues(issuesFromZod(checked.error))}`);
}

describe('a run file of every earlier format version imports', () => {
  it('has a file of every earlier version', () => {
    expect(files.map((f) => f.version)).toEqual(
      Array.from({ length: runFileVersion() - 1 }, (_, i) => i + 1),
    );
  });

  for (const { version, text } of files) {
    it(`imports flowbench.run/${version}, every row valid against the current schemas`, () => {
      const file = JSON.parse(text) as Json;
      expect(file.format).toBe(`flowbench.run/${version}`);
      const record = imported(file);
      expectValid(runRowSchema, record.run, 'the run');
      record.nodes.forEach((n) => expectValid(runNodeRowSchema, n, `node ${n.node}`));
      record.metrics.forEach((m) => expectValid(metricRowSchema, m, `metric ${m.name}`));
      record.artifacts.forEach((a) => expectValid(artifactRowSchema, a, `artifact ${a.name}`));
      record.intervals.forEach((i) => expectValid(intervalRowSchema, i, `interval ${i.kind}`));
      expect(record.run.id).toBe(file.run.id);
      expect(record.metrics.length).toBeGreaterThan(0);
      // Exported again, it is a current file that says the same.
      const again = toRunExport(record);
      expect(again.format).toBe(RUN_FORMAT);
      expect(imported(JSON.parse(JSON.stringify(again)))).toEqual(record);
    });
  }
});

describe('flowbench.run/1 → /2', () => {
  it('fills in the provenance of a file written before runs recorded it, keeping what a file says', () => {
    const file = fileOf(1);
    expect(file.run.backendChoice).toBe('wasm');
    expect(imported(file).run.backendChoice).toBe('wasm');
    const { cause: _c, backendChoice: _b, requires: _r, rerunOf: _o, ...older } = file.run;
    const run = imported({ ...file, run: older }).run;
    expect(run).toMatchObject({ cause: 'ui', backendChoice: 'auto', requires: [], rerunOf: null });
  });

  it('reads a /1 file without artifacts or intervals as having none', () => {
    const { artifacts: _a, intervals: _i, ...file } = fileOf(1);
    const record = imported(file);
    expect(record.artifacts).toEqual([]);
    expect(record.intervals).toEqual([]);
  });

  it('a /2 file must list them, and its provenance', () => {
    const current = JSON.parse(JSON.stringify(toRunExport(imported(fileOf(1))))) as Json;
    expect(current.format).toBe('flowbench.run/2');
    const { intervals: _i, ...withoutIntervals } = current;
    const { requires: _r, ...run } = current.run;
    for (const [doc, path] of [
      [withoutIntervals, 'intervals'],
      [{ ...current, run }, 'run.requires'],
    ] as const) {
      const result = fromRunExport(doc);
      expect(result.ok ? [] : result.issues.map((i) => i.path)).toEqual([path]);
    }
  });

  it('names the version it wrote in the upgraded file', () => {
    const upgraded = upgradeRunFile(fileOf(1));
    expect(upgraded.ok && (upgraded.file as Json).format).toBe('flowbench.run/2');
  });
});

describe('the run fingerprint in flowbench.run/2', () => {
  const fingerprint: RunFingerprint = {
    app: { version: '0.1.0', build: 'abc1234' },
    ort: '1.30.0',
    backend: 'wasm',
    adapter: null,
    browser: {
      userAgent: 'Mozilla/5.0 HeadlessChrome/156.0.0.0',
      brands: [{ brand: 'Chromium', version: '156' }],
      platform: 'Linux',
      hardwareConcurrency: 2,
      deviceMemory: null,
      crossOriginIsolated: true,
    },
  };
  const withFingerprint = (): RunRecord => {
    const record = imported(fileOf(1));
    return { ...record, run: { ...record.run, fingerprint } };
  };

  it('is optional: files from before it import with none', () => {
    for (const { version } of files)
      expect('fingerprint' in imported(fileOf(version)).run).toBe(false);
  });

  it('travels in an export and comes back field for field, the format still /2', () => {
    const file = JSON.parse(JSON.stringify(toRunExport(withFingerprint()))) as Json;
    expect(file.format).toBe('flowbench.run/2');
    expect(file.run.fingerprint).toEqual(fingerprint);
    expect(imported(file)).toEqual(withFingerprint());
  });

  it('a /2 reader from before fingerprints imports a file that has one, leaving it out', () => {
    const before: RunFileRecords = {
      ...storedRecords,
      runs: { ...runRecord, schema: z.omit(runRowSchema, { fingerprint: true }) },
    };
    const file = JSON.parse(JSON.stringify(toRunExport(withFingerprint()))) as Json;
    const result = fromRunExport(file, before);
    expect(result.ok).toBe(true);
    expect(result.ok && 'fingerprint' in result.record.run).toBe(false);
  });

  it('a malformed one is refused, naming the field', () => {
    const file = JSON.parse(JSON.stringify(toRunExport(withFingerprint()))) as Json;
    const run = {
      ...file.run,
      fingerprint: {
        ...fingerprint,
        browser: { ...fingerprint.browser, crossOriginIsolated: 'yes' },
      },
    };
    const result = fromRunExport({ ...file, run });
    expect(result.ok ? [] : result.issues.map((i) => i.path)).toEqual([
      'run.fingerprint.browser.crossOriginIsolated',
    ]);
  });
});

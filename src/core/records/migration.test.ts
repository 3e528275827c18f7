import { describe, expect, it } from 'vitest';
import { z } from '../schema';
import { defineRecord, formatVersion, migrate, recordVersion, type Migration } from './migration';

const step = (to: number, db: number, file?: number): Migration => ({
  to,
  db,
  file,
  change: `v${to}`,
  up: (record) => ({ ...record, [`v${to}`]: true }),
});

describe('a record kind', () => {
  it('numbers its migrations 2, 3, … and its database and file versions never go back', () => {
    const schema = z.object({});
    const define = (migrations: Migration[]) => () =>
      defineRecord({ name: 'thing', schema, migrations });
    expect(define([step(2, 3, 2), step(3, 3), step(4, 5, 3)])).not.toThrow();
    expect(define([step(3, 3)])).toThrow('thing migration to v3: expected to be v2');
    expect(define([step(2, 4), step(3, 3)])).toThrow('database version 3 goes back from 4');
    expect(define([step(2, 4, 3), step(3, 4, 2)])).toThrow('file version 2 goes back from 3');
    expect(recordVersion(defineRecord({ name: 't', schema, migrations: [step(2, 3)] }))).toBe(2);
  });

  it('applies its migrations in order, and leaves what is not a record to the schema', () => {
    expect(migrate({ a: 1 }, [step(2, 3), step(3, 4)])).toEqual({ a: 1, v2: true, v3: true });
    for (const value of [null, 3, 'x', [1]]) expect(migrate(value, [step(2, 3)])).toBe(value);
  });
});

describe('formatVersion', () => {
  it('reads the version a format names, and nothing else', () => {
    expect(formatVersion('flowbench.run', 'flowbench.run/2')).toBe(2);
    expect(formatVersion('flowbench.run', 'flowbench.run/12')).toBe(12);
    for (const format of [
      'flowbench.run/0',
      'flowbench.run/x',
      'flowbench.run/1.5',
      'flowbench.flow/1',
      2,
    ])
      expect(formatVersion('flowbench.run', format)).toBeUndefined();
  });
});

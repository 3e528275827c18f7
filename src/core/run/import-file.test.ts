import { describe, expect, it } from 'vitest';
import { isFlowbenchError } from '../errors';
import { jsonDepth, MAX_IMPORT_DEPTH, parseImportText } from './import-file';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('jsonDepth', () => {
  it('counts arrays and objects, and nothing inside strings', () => {
    expect(jsonDepth('1')).toBe(0);
    expect(jsonDepth('{"a": [1, {"b": []}]}')).toBe(4);
    expect(jsonDepth('{"a": "[[[{{{", "b": "\\\\\\"[["}')).toBe(1);
  });

  it('stops counting once past its limit', () => {
    expect(jsonDepth(nested(10_000), 3)).toBe(4);
  });
});

describe('parseImportText', () => {
  it('reads JSON as deep as the limit', () => {
    expect(jsonDepth(JSON.stringify(parseImportText('ok.json', nested(MAX_IMPORT_DEPTH))))).toBe(
      MAX_IMPORT_DEPTH,
    );
  });

  it('refuses JSON nested deeper, naming the file and the limit, before parsing it', () => {
    let thrown: unknown;
    try {
      parseImportText('deep.json', nested(200_000));
    } catch (error) {
      thrown = error;
    }
    expect(isFlowbenchError(thrown, 'bad-import')).toBe(true);
    expect((thrown as Error).message).toBe(
      `deep.json nests its arrays and objects more than ${MAX_IMPORT_DEPTH} levels deep; Flowbench reads files up to ${MAX_IMPORT_DEPTH} levels`,
    );
  });

  it('still says which JSON is malformed', () => {
    expect(() => parseImportText('cut.json', '{"a": [')).toThrow(/^cut\.json is not valid JSON/);
  });
});

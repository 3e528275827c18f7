import { describe, expect, it } from 'vitest';
import { cacheParam, createCatalog, defaultParams } from './catalog';
import { defineNodeKind, type KindCaching } from './kind';

const kindOf = (name: string, cache?: KindCaching) =>
  defineNodeKind({
    kind: name,
    title: name,
    category: 'data',
    description: '',
    ...(cache && { cache }),
    params: { n: { type: 'int', default: 3, description: '' } },
    inputs: [],
    outputs: [],
    execute: () => Promise.resolve(),
  });

describe('the cache param of a catalog', () => {
  const catalog = createCatalog([kindOf('t.pure'), kindOf('t.clock', 'never')]);

  it('is given to every kind the cache may hold, and to no kind it never holds', () => {
    expect(catalog.get('t.pure')!.params.cache).toBe(cacheParam);
    expect(catalog.get('t.clock')!.params).not.toHaveProperty('cache');
  });

  it('is left out of a new node’s params, so a flow without it means auto', () => {
    expect(defaultParams(catalog.get('t.pure')!)).toEqual({ n: 3 });
  });
});

/**
 * A catalog: the node kinds a flow may use, by kind name. Every kind the
 * node-output cache may hold gets the `cache` param here, once for all.
 */
import type { NodeKind } from './kind';
import type { EnumParam } from './params';
import type { PortSpec } from './ports';

export type Catalog = ReadonlyMap<string, NodeKind>;

/** The per-node switch of the node-output cache; `off` recomputes the node on every run. */
export const cacheParam: EnumParam<'auto' | 'off'> = {
  type: 'enum',
  options: ['auto', 'off'],
  default: 'auto',
  description:
    'auto: when the node-output cache holds outputs for the same kind, params and inputs, they stand in for running the node; off: it runs every time.',
};

export function createCatalog(kinds: readonly NodeKind[]): Catalog {
  const catalog = new Map<string, NodeKind>();
  for (const kind of kinds) {
    if (catalog.has(kind.kind)) throw new Error(`node kind '${kind.kind}' is declared twice`);
    catalog.set(kind.kind, withCacheParam(kind));
  }
  return catalog;
}

/** A kind the cache may hold, with the `cache` param (a kind never cached has nothing to switch). */
function withCacheParam(kind: NodeKind): NodeKind {
  if (kind.cache === 'never' || Object.hasOwn(kind.params, 'cache')) return kind;
  return { ...kind, params: { ...kind.params, cache: cacheParam } };
}

export function findPort(
  kind: NodeKind,
  side: 'inputs' | 'outputs',
  port: string,
): PortSpec | undefined {
  return kind[side].find((p) => p.name === port);
}

/**
 * Default params of a kind, as a new node gets them. The `cache` switch is
 * left out: `auto` when absent, it says how to run, not what to compute, and
 * a flow written without it stays readable by a release that has no cache.
 */
export function defaultParams(kind: NodeKind): Record<string, number | string | boolean> {
  return Object.fromEntries(
    Object.entries(kind.params)
      .filter(([name, spec]) => !(name === 'cache' && spec === cacheParam))
      .map(([name, spec]) => [name, spec.default]),
  );
}

/** A catalog: the node kinds a flow may use, by kind name. */
import type { NodeKind } from './kind';
import type { PortSpec } from './ports';

export type Catalog = ReadonlyMap<string, NodeKind>;

export function createCatalog(kinds: readonly NodeKind[]): Catalog {
  const catalog = new Map<string, NodeKind>();
  for (const kind of kinds) {
    if (catalog.has(kind.kind)) throw new Error(`node kind '${kind.kind}' is declared twice`);
    catalog.set(kind.kind, kind);
  }
  return catalog;
}

export function findPort(
  kind: NodeKind,
  side: 'inputs' | 'outputs',
  port: string,
): PortSpec | undefined {
  return kind[side].find((p) => p.name === port);
}

/** Default params of a kind, as a new node gets them. */
export function defaultParams(kind: NodeKind): Record<string, number | string | boolean> {
  return Object.fromEntries(
    Object.entries(kind.params).map(([name, spec]) => [name, spec.default]),
  );
}

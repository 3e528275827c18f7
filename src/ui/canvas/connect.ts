/** Whether a connection drawn on the canvas may exist, and why not. */
import type { Connection } from '@xyflow/react';
import { findPort } from '../../core/catalog/catalog';
import type { FlowDocument } from '../../core/flow/document';
import { findCycle } from '../../core/flow/validate';
import { builtinCatalog } from '../../core/nodes';

/** A reason the connection is refused, or null when it is fine. */
export function refuseConnection(doc: FlowDocument, c: Connection): string | null {
  if (!c.sourceHandle || !c.targetHandle) return 'connect a port to a port';
  const from = `${c.source}.${c.sourceHandle}`;
  const to = `${c.target}.${c.targetHandle}`;
  const kindOf = (id: string) => builtinCatalog.get(doc.nodes.find((n) => n.id === id)?.kind ?? '');
  const sourceKind = kindOf(c.source);
  const targetKind = kindOf(c.target);
  const out = sourceKind && findPort(sourceKind, 'outputs', c.sourceHandle);
  const into = targetKind && findPort(targetKind, 'inputs', c.targetHandle);
  if (!out || !into) return `cannot connect ${from} to ${to}: unknown port`;
  if (out.type !== into.type)
    return `cannot connect ${from} (${out.type}) to ${to} (${into.type}): the types differ`;
  const cycle = findCycle({
    ...doc,
    edges: [...doc.edges.filter((e) => e.to !== to), { from, to }],
  });
  if (cycle) return `cannot connect ${from} to ${to}: it would make a cycle (${cycle.join(' → ')})`;
  return null;
}

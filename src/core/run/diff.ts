/**
 * Two runs side by side: what they ran with (params, seed, digest), the
 * flows they ran compared node by node, what they ran on, and per metric its
 * final values and whether the two series are the same bit for bit.
 *
 * A flow is compared by what it computes, never by how it is drawn: node
 * positions, labels and group frames are layout, so moving a node is no
 * change. Nodes are matched by id (ids are stable across edits and copies of
 * a flow keep them), which reads as a person thinks of an edit: "train's lr
 * changed", not "a node was removed and another added".
 */
import type { FlowDocument, FlowNode, ParamValue } from '../flow/document';
import { compareSeries } from './compare';
import { fingerprintFacts, type RunFingerprint } from './fingerprint';
import type { InputValue } from './params';

/** One param (or the seed) of the two runs. */
export interface ParamDiff {
  readonly name: string;
  /** `undefined` where a run has no such param (its flow had no such input). */
  readonly a: InputValue | undefined;
  readonly b: InputValue | undefined;
  readonly same: boolean;
}

/** A param of a node that is not the same in the two flows. */
export interface NodeParamChange {
  readonly param: string;
  /** `undefined`: the node does not set it (its kind's default applies). */
  readonly a: ParamValue | undefined;
  readonly b: ParamValue | undefined;
}

/** How one node differs between the flows of run A and run B. */
export type NodeChange =
  | { readonly change: 'added'; readonly node: string; readonly kind: string }
  | { readonly change: 'removed'; readonly node: string; readonly kind: string }
  | { readonly change: 'kind'; readonly node: string; readonly a: string; readonly b: string }
  | {
      readonly change: 'params';
      readonly node: string;
      readonly params: readonly NodeParamChange[];
    }
  | { readonly change: 'bypass'; readonly node: string; readonly bypassed: boolean };

/** An edge only one of the flows has. */
export interface EdgeChange {
  readonly change: 'added' | 'removed';
  readonly from: string;
  readonly to: string;
}

/** What differs in what two flows compute: nodes by id, then edges. */
export interface FlowDiff {
  readonly nodes: readonly NodeChange[];
  readonly edges: readonly EdgeChange[];
}

/** One fact of what the runs ran on; `'—'` for a side that lacks it. */
export interface FingerprintRow {
  readonly key: string;
  readonly label: string;
  readonly a: string;
  readonly b: string;
  readonly same: boolean;
}

/** One metric of the two runs: last values and whether the series are identical. */
export interface MetricDiff {
  readonly metric: string;
  /** The last recorded value, `undefined` where the run has no point of it. */
  readonly a: number | undefined;
  readonly b: number | undefined;
  readonly aPoints: number;
  readonly bPoints: number;
  /** Every value equal, bit for bit (`Object.is`), and as many points. */
  readonly identical: boolean;
  /**
   * Not identical, but the runs ran on different engines and every value
   * agrees within this relative tolerance (`ENGINE_TOLERANCE`, compare.ts).
   */
  readonly within?: number;
}

const ABSENT = '—';

/** Values equal as JSON data (params are numbers, strings, booleans, null, lists, `$input` refs). */
function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Each param of either run and the seed, sorted by name with the seed last;
 * `same` compares values, so `0.1` and `0.10` are the same number.
 */
export function diffParams(
  a: { readonly params: Readonly<Record<string, InputValue>>; readonly seed: number },
  b: { readonly params: Readonly<Record<string, InputValue>>; readonly seed: number },
): ParamDiff[] {
  const names = [...new Set([...Object.keys(a.params), ...Object.keys(b.params)])].sort();
  const rows: ParamDiff[] = names.map((name) => {
    const left = a.params[name];
    const right = b.params[name];
    return { name, a: left, b: right, same: sameValue(left, right) };
  });
  rows.push({ name: 'seed', a: a.seed, b: b.seed, same: a.seed === b.seed });
  return rows;
}

function nodeParamChanges(a: FlowNode, b: FlowNode): NodeParamChange[] {
  const names = [...new Set([...Object.keys(a.params), ...Object.keys(b.params)])].sort();
  return names
    .filter((param) => !sameValue(a.params[param], b.params[param]))
    .map((param) => ({ param, a: a.params[param], b: b.params[param] }));
}

/**
 * What differs in what flow `a` and flow `b` compute: nodes added, removed,
 * of another kind, with other params or bypassed differently (in `b`'s node
 * order, removed ones after), and edges added or removed. Positions, labels
 * and groups are ignored.
 */
export function diffFlows(
  a: Pick<FlowDocument, 'nodes' | 'edges'>,
  b: Pick<FlowDocument, 'nodes' | 'edges'>,
): FlowDiff {
  const before = new Map(a.nodes.map((node) => [node.id, node]));
  const after = new Map(b.nodes.map((node) => [node.id, node]));
  const nodes: NodeChange[] = [];
  for (const node of b.nodes) {
    const old = before.get(node.id);
    if (!old) {
      nodes.push({ change: 'added', node: node.id, kind: node.kind });
      continue;
    }
    if (old.kind !== node.kind) {
      // Another kind's params mean other things: the kind change says it all.
      nodes.push({ change: 'kind', node: node.id, a: old.kind, b: node.kind });
      continue;
    }
    const params = nodeParamChanges(old, node);
    if (params.length > 0) nodes.push({ change: 'params', node: node.id, params });
    if (Boolean(old.bypass) !== Boolean(node.bypass))
      nodes.push({ change: 'bypass', node: node.id, bypassed: Boolean(node.bypass) });
  }
  for (const node of a.nodes)
    if (!after.has(node.id)) nodes.push({ change: 'removed', node: node.id, kind: node.kind });

  const key = (edge: { from: string; to: string }) => `${edge.from} ${edge.to}`;
  const edgesBefore = new Set(a.edges.map(key));
  const edgesAfter = new Set(b.edges.map(key));
  const edges: EdgeChange[] = [
    ...b.edges
      .filter((edge) => !edgesBefore.has(key(edge)))
      .map((edge) => ({ change: 'added' as const, from: edge.from, to: edge.to })),
    ...a.edges
      .filter((edge) => !edgesAfter.has(key(edge)))
      .map((edge) => ({ change: 'removed' as const, from: edge.from, to: edge.to })),
  ];
  return { nodes, edges };
}

/** Whether two flows compute the same thing. */
export function flowsAlike(diff: FlowDiff): boolean {
  return diff.nodes.length === 0 && diff.edges.length === 0;
}

/**
 * Every fact of what either run ran on, in the run page's order, with both
 * values; `[]` when neither has a fingerprint (runs from before them).
 */
export function diffFingerprints(
  a: RunFingerprint | undefined,
  b: RunFingerprint | undefined,
): FingerprintRow[] {
  const left = a ? fingerprintFacts(a) : [];
  const right = b ? fingerprintFacts(b) : [];
  const byKey = new Map(right.map((fact) => [fact.key, fact]));
  const keys = [...new Set([...left.map((f) => f.key), ...right.map((f) => f.key)])];
  const leftByKey = new Map(left.map((fact) => [fact.key, fact]));
  return keys.map((key) => {
    const one = leftByKey.get(key);
    const other = byKey.get(key);
    const valueA = one?.value ?? ABSENT;
    const valueB = other?.value ?? ABSENT;
    // A set-valued fact (the adapter's features) is the same whatever order it was listed in.
    const same =
      one?.items !== undefined && other?.items !== undefined
        ? sameSet(one.items, other.items)
        : valueA === valueB;
    return { key, label: (one ?? other)!.label, a: valueA, b: valueB, same };
  });
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  return left.size === new Set(b).size && b.every((item) => left.has(item));
}

/**
 * A metric of the two runs, from the values of its two series in step order;
 * `tolerance` (`toleranceFor` the two runs) where they ran on different engines.
 */
export function diffMetric(
  metric: string,
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  tolerance?: number,
): MetricDiff {
  const comparison = compareSeries(metric, a, b, tolerance);
  return {
    metric,
    a: a.length > 0 ? a[a.length - 1] : undefined,
    b: b.length > 0 ? b[b.length - 1] : undefined,
    aPoints: a.length,
    bPoints: b.length,
    identical: comparison.same,
    ...(!comparison.same && comparison.within && { within: comparison.within.tolerance }),
  };
}

/** A param value as the diff shows it: strings bare, `$input` refs as `← input lr`, the rest as JSON. */
export function formatDiffValue(value: ParamValue | InputValue | undefined): string {
  if (value === undefined) return ABSENT;
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value))
    return `← input ${value.$input}`;
  return JSON.stringify(value);
}

/** One node change in a sentence, e.g. `model: hidden 32 → 16`. */
export function describeNodeChange(change: NodeChange): string {
  switch (change.change) {
    case 'added':
      return `${change.node}: added (${change.kind})`;
    case 'removed':
      return `${change.node}: removed (${change.kind})`;
    case 'kind':
      return `${change.node}: kind ${change.a} → ${change.b}`;
    case 'bypass':
      return `${change.node}: ${change.bypassed ? 'bypassed' : 'no longer bypassed'}`;
    case 'params':
      return `${change.node}: ${change.params
        .map((p) => `${p.param} ${formatDiffValue(p.a)} → ${formatDiffValue(p.b)}`)
        .join(', ')}`;
  }
}

/** One edge change in a sentence, e.g. `edge added: split.test → eval.dataset`. */
export function describeEdgeChange(change: EdgeChange): string {
  return `edge ${change.change}: ${change.from} → ${change.to}`;
}

/**
 * Flow validation: everything that can be known wrong about a flow before it
 * runs — unknown kinds and ports, type mismatches, unwired inputs, bad params,
 * dangling input references, cycles. Each finding names the node, port or
 * field, so the canvas can point at it and an import can say where it failed.
 */
import type { Catalog } from '../catalog/catalog';
import { findPort } from '../catalog/catalog';
import type { NodeKind, ParamFinding } from '../catalog/kind';
import { checkParam, describeParam, type ParamSpecs, type ParamValues } from '../catalog/params';
import {
  flowDocumentSchema,
  isInputRef,
  parsePortRef,
  type FlowDocument,
  type FlowNode,
} from './document';
import { cycleIn, flowGraph, type FlowGraph, type GraphWire } from './graph';
import { groupIssues } from './groups';
import { upgradeFlowFile } from '../records/flow-file';
import { issuesFromZod, type FlowIssue } from './issues';
import { protoKeyIssues } from './untrusted';

/** Parse unknown input (an imported file, an IndexedDB row) into a flow document. */
export function parseFlow(
  input: unknown,
): { ok: true; flow: FlowDocument } | { ok: false; issues: FlowIssue[] } {
  const unsafe = protoKeyIssues(input);
  if (unsafe.length > 0) return { ok: false, issues: unsafe };
  // An older flow file is migrated first, by the same mechanism as run files.
  const parsed = flowDocumentSchema.safeParse(upgradeFlowFile(input));
  return parsed.success
    ? { ok: true, flow: parsed.data }
    : { ok: false, issues: issuesFromZod(parsed.error) };
}

/**
 * All findings for a parsed flow against a catalog; an empty list means it can run.
 * A caller that already holds the flow's `graph` (the executor) passes it in.
 */
export function validateFlow(
  flow: FlowDocument,
  catalog: Catalog,
  graph: FlowGraph = flowGraph(flow),
): FlowIssue[] {
  const issues: FlowIssue[] = [];

  flow.inputs.forEach((input, i) => {
    if (flow.inputs.findIndex((other) => other.name === input.name) !== i)
      issues.push({ path: `inputs[${i}].name`, message: `duplicate input '${input.name}'` });
  });

  // The kind of each vertex's node, looked up once (undefined: no such node, or unknown kind).
  const kinds: (NodeKind | undefined)[] = new Array<NodeKind | undefined>(graph.ids.length);
  flow.nodes.forEach((node, i) => {
    const v = graph.nodeVertex[i]!;
    if (graph.nodeAt[v] !== i) {
      issues.push({ path: `nodes[${i}].id`, message: `duplicate node id '${node.id}'` });
      return;
    }
    const kind = catalog.get(node.kind);
    if (!kind) {
      issues.push({
        path: `nodes[${i}].kind`,
        message: `node '${node.id}' has unknown kind '${node.kind}'`,
      });
      return;
    }
    kinds[v] = kind;
    paramIssues(flow, node, kind, i, issues);
  });

  const wired = edgeIssues(graph, kinds, issues);

  graph.nodeAt.forEach((i, v) => {
    const kind = kinds[v];
    if (!kind) return;
    const node = flow.nodes[i]!;
    for (const port of kind.inputs)
      if (!port.optional && !isWired(graph, wired, v, port.name))
        issues.push({
          path: `nodes[${i}]`,
          message: `node '${node.id}' input '${port.name}' (${port.type}) is not connected`,
        });
  });

  // A flow without groups (most) need not pay for the check.
  if (flow.groups?.length) issues.push(...groupIssues(flow));

  const cycle = cycleIn(graph);
  if (cycle) issues.push({ path: 'edges', message: `the flow has a cycle: ${cycle.join(' → ')}` });

  flow.outputs.forEach((output, i) => {
    const resolved = resolveOutput(flow, catalog, output);
    if (typeof resolved === 'string') issues.push({ path: `outputs[${i}]`, message: resolved });
  });
  return issues;
}

/** How an edge counts for its input, by edge index (see `edgeIssues`). */
const NOT_WIRING = 0;
/** It wires its input, but an earlier edge already did and is the one named. */
const ALSO_WIRING = 1;
/** It wires its input, and a later edge into that input names it ("also by"). */
const WIRING = 2;

/**
 * Findings about each edge: missing nodes, unknown ports, type mismatches,
 * an input wired twice. Returns how each edge counts for its input, so that
 * an input with an edge into it is not also called unconnected.
 */
function edgeIssues(
  graph: FlowGraph,
  kinds: readonly (NodeKind | undefined)[],
  issues: FlowIssue[],
): Uint8Array {
  const wired = new Uint8Array(graph.wires.length);
  for (const wire of graph.wires) {
    const { edge, index: i, source, target, fromPort, toPort } = wire;
    if (graph.nodeAt[source]! < 0 || graph.nodeAt[target]! < 0) {
      const missing = graph.ids[graph.nodeAt[source]! < 0 ? source : target]!;
      issues.push({
        path: `edges[${i}]`,
        message: `edge ${edge.from} → ${edge.to}: no node '${missing}'`,
      });
      continue;
    }
    const fromKind = kinds[source];
    const toKind = kinds[target];
    if (!fromKind || !toKind) {
      // Already reported on the node; the input is wired, so don't also call it unconnected.
      wired[i] = earlierWiring(graph, wired, wire) === undefined ? WIRING : ALSO_WIRING;
      continue;
    }
    const out = findPort(fromKind, 'outputs', fromPort);
    const into = findPort(toKind, 'inputs', toPort);
    if (!out) {
      issues.push({
        path: `edges[${i}].from`,
        message: `node '${graph.ids[source]!}' (${fromKind.kind}) has no output port '${fromPort}' (it has: ${portList(fromKind.outputs)})`,
      });
      continue;
    }
    if (!into) {
      issues.push({
        path: `edges[${i}].to`,
        message: `node '${graph.ids[target]!}' (${toKind.kind}) has no input port '${toPort}' (it has: ${portList(toKind.inputs)})`,
      });
      continue;
    }
    if (out.type !== into.type)
      issues.push({
        path: `edges[${i}]`,
        message: `edge ${edge.from} → ${edge.to}: type mismatch, ${out.type} cannot flow into ${into.type}`,
      });
    const before = earlierWiring(graph, wired, wire);
    if (before !== undefined)
      issues.push({
        path: `edges[${i}].to`,
        message: `input ${edge.to} is wired twice (also by edges[${before}])`,
      });
    wired[i] = WIRING;
  }
  return wired;
}

/**
 * The last edge before `wire` (in document order) into the same input that
 * counts as `WIRING` it. Found among the target node's own incoming edges,
 * which are few, so no table of every input of the flow is needed.
 */
function earlierWiring(graph: FlowGraph, wired: Uint8Array, wire: GraphWire): number | undefined {
  const { start, wires } = graph.incoming;
  let found: number | undefined;
  for (let k = start[wire.target]!; k < start[wire.target + 1]!; k++) {
    const w = wires[k]!;
    if (w >= wire.index) break;
    if (wired[w] === WIRING && graph.wires[w]!.toPort === wire.toPort) found = w;
  }
  return found;
}

/** Whether input `port` of vertex `v` has an edge into it that counts as wiring it. */
function isWired(graph: FlowGraph, wired: Uint8Array, v: number, port: string): boolean {
  const { start, wires } = graph.incoming;
  for (let k = start[v]!; k < start[v + 1]!; k++) {
    const w = wires[k]!;
    if (wired[w] !== NOT_WIRING && graph.wires[w]!.toPort === port) return true;
  }
  return false;
}

/** Findings about node `i`'s params (unknown names, bad `$input` references, values out of range), added to `issues`. */
function paramIssues(
  flow: FlowDocument,
  node: FlowNode,
  kind: NodeKind,
  i: number,
  issues: FlowIssue[],
): void {
  for (const [name, value] of Object.entries(node.params)) {
    const path = `nodes[${i}].params.${name}`;
    const spec = kind.params[name];
    if (!spec) {
      const known = Object.keys(kind.params).join(', ') || 'none';
      issues.push({
        path,
        message: `node '${node.id}' (${node.kind}) has no param '${name}' (it has: ${known})`,
      });
      continue;
    }
    if (isInputRef(value)) {
      const input = flow.inputs.find((x) => x.name === value.$input);
      if (!input)
        issues.push({
          path,
          message: `node '${node.id}' param '${name}' refers to flow input '${value.$input}', which the flow does not declare`,
        });
      else if (!inputFitsParam(input.type, spec.type))
        issues.push({
          path,
          message: `node '${node.id}' param '${name}' expects ${describeParam(spec)} but flow input '${input.name}' is of type ${input.type}`,
        });
      continue;
    }
    const problem = checkParam(spec, value);
    if (problem) issues.push({ path, message: `node '${node.id}' param '${name}': ${problem}` });
  }
  for (const finding of crossParamFindings(kind, node.params))
    issues.push({
      path: `nodes[${i}].params.${finding.param}`,
      message: `node '${node.id}' param '${finding.param}': ${finding.message}`,
    });
}

/**
 * The kind's findings across a node's params (`checkParams`), with defaults
 * filled in. None while a param is bound to a flow input (it has no value
 * until a run gives it one; submit checks then) or does not fit on its own
 * (that finding is already made, and a finding about the pair would only
 * repeat it).
 */
export function crossParamFindings(
  kind: NodeKind,
  values: Readonly<Record<string, unknown>>,
): readonly ParamFinding[] {
  if (!kind.checkParams) return [];
  const params: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(kind.params)) {
    const value = Object.hasOwn(values, name) ? values[name] : spec.default;
    if (isInputRef(value) || checkParam(spec, value)) return [];
    params[name] = value;
  }
  return kind.checkParams(params as ParamValues<ParamSpecs>);
}

function portList(ports: readonly { name: string }[]): string {
  return ports.map((p) => p.name).join(', ') || 'none';
}

function inputFitsParam(input: string, param: string): boolean {
  if (param === 'number') return input === 'number' || input === 'int';
  if (param === 'enum') return input === 'string';
  return input === param;
}

/** A cycle as a list of node ids (first repeated at the end), or null. */
export function findCycle(flow: Pick<FlowDocument, 'nodes' | 'edges'>): string[] | null {
  return cycleIn(flowGraph(flow));
}

/**
 * A flow output names `node.port`, or a port name that exactly one node
 * outputs. Returns the address, or a message saying why it does not resolve.
 */
export function resolveOutput(
  flow: FlowDocument,
  catalog: Catalog,
  output: string,
): { node: string; port: string } | string {
  if (output.includes('.')) {
    const { node, port } = parsePortRef(output);
    const found = flow.nodes.find((n) => n.id === node);
    const kind = found && catalog.get(found.kind);
    if (!kind || !findPort(kind, 'outputs', port))
      return `flow output '${output}' names no output port of this flow`;
    return { node, port };
  }
  const matches = flow.nodes.filter((n) => {
    const kind = catalog.get(n.kind);
    return kind !== undefined && findPort(kind, 'outputs', output) !== undefined;
  });
  if (matches.length === 1) return { node: matches[0]!.id, port: output };
  return matches.length === 0
    ? `flow output '${output}' names no output port of this flow`
    : `flow output '${output}' is ambiguous (nodes ${matches.map((m) => `'${m.id}'`).join(', ')} all have it): write it as node.port`;
}

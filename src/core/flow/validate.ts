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
import { flowDocumentSchema, isInputRef, parsePortRef, type FlowDocument } from './document';
import { groupIssues } from './groups';
import { issuesFromZod, type FlowIssue } from './issues';
import { protoKeyIssues } from './untrusted';

/** Parse unknown input (an imported file, an IndexedDB row) into a flow document. */
export function parseFlow(
  input: unknown,
): { ok: true; flow: FlowDocument } | { ok: false; issues: FlowIssue[] } {
  const unsafe = protoKeyIssues(input);
  if (unsafe.length > 0) return { ok: false, issues: unsafe };
  const parsed = flowDocumentSchema.safeParse(input);
  return parsed.success
    ? { ok: true, flow: parsed.data }
    : { ok: false, issues: issuesFromZod(parsed.error) };
}

/** All findings for a parsed flow against a catalog; an empty list means it can run. */
export function validateFlow(flow: FlowDocument, catalog: Catalog): FlowIssue[] {
  const issues: FlowIssue[] = [];
  const nodeIndex = new Map<string, number>();

  flow.inputs.forEach((input, i) => {
    if (flow.inputs.findIndex((other) => other.name === input.name) !== i)
      issues.push({ path: `inputs[${i}].name`, message: `duplicate input '${input.name}'` });
  });

  flow.nodes.forEach((node, i) => {
    if (nodeIndex.has(node.id)) {
      issues.push({ path: `nodes[${i}].id`, message: `duplicate node id '${node.id}'` });
      return;
    }
    nodeIndex.set(node.id, i);
    const kind = catalog.get(node.kind);
    if (!kind) {
      issues.push({
        path: `nodes[${i}].kind`,
        message: `node '${node.id}' has unknown kind '${node.kind}'`,
      });
      return;
    }
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
  });

  const wired = new Map<string, number>();
  flow.edges.forEach((edge, i) => {
    const path = `edges[${i}]`;
    const from = parsePortRef(edge.from);
    const to = parsePortRef(edge.to);
    const fromNode = flow.nodes[nodeIndex.get(from.node) ?? -1];
    const toNode = flow.nodes[nodeIndex.get(to.node) ?? -1];
    if (!fromNode || !toNode) {
      const missing = !fromNode ? from.node : to.node;
      issues.push({ path, message: `edge ${edge.from} → ${edge.to}: no node '${missing}'` });
      return;
    }
    const fromKind = catalog.get(fromNode.kind);
    const toKind = catalog.get(toNode.kind);
    if (!fromKind || !toKind) {
      // Already reported on the node; the input is wired, so don't also call it unconnected.
      if (!wired.has(edge.to)) wired.set(edge.to, i);
      return;
    }
    const out = findPort(fromKind, 'outputs', from.port);
    const into = findPort(toKind, 'inputs', to.port);
    if (!out) {
      issues.push({
        path: `${path}.from`,
        message: `node '${from.node}' (${fromKind.kind}) has no output port '${from.port}' (it has: ${portList(fromKind.outputs)})`,
      });
      return;
    }
    if (!into) {
      issues.push({
        path: `${path}.to`,
        message: `node '${to.node}' (${toKind.kind}) has no input port '${to.port}' (it has: ${portList(toKind.inputs)})`,
      });
      return;
    }
    if (out.type !== into.type)
      issues.push({
        path,
        message: `edge ${edge.from} → ${edge.to}: type mismatch, ${out.type} cannot flow into ${into.type}`,
      });
    if (wired.has(edge.to))
      issues.push({
        path: `${path}.to`,
        message: `input ${edge.to} is wired twice (also by edges[${wired.get(edge.to)}])`,
      });
    wired.set(edge.to, i);
  });

  flow.nodes.forEach((node, i) => {
    const kind = catalog.get(node.kind);
    if (!kind || nodeIndex.get(node.id) !== i) return;
    for (const port of kind.inputs)
      if (!port.optional && !wired.has(`${node.id}.${port.name}`))
        issues.push({
          path: `nodes[${i}]`,
          message: `node '${node.id}' input '${port.name}' (${port.type}) is not connected`,
        });
  });

  issues.push(...groupIssues(flow));

  const cycle = findCycle(flow);
  if (cycle) issues.push({ path: 'edges', message: `the flow has a cycle: ${cycle.join(' → ')}` });

  flow.outputs.forEach((output, i) => {
    const resolved = resolveOutput(flow, catalog, output);
    if (typeof resolved === 'string') issues.push({ path: `outputs[${i}]`, message: resolved });
  });
  return issues;
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
export function findCycle(flow: FlowDocument): string[] | null {
  const next = new Map<string, string[]>();
  for (const edge of flow.edges) {
    const from = parsePortRef(edge.from).node;
    next.set(from, [...(next.get(from) ?? []), parsePortRef(edge.to).node]);
  }
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | null => {
    state.set(id, 'open');
    stack.push(id);
    for (const to of next.get(id) ?? []) {
      if (state.get(to) === 'open') return [...stack.slice(stack.indexOf(to)), to];
      if (!state.has(to)) {
        const found = visit(to);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(id, 'done');
    return null;
  };
  for (const node of flow.nodes) {
    if (state.has(node.id)) continue;
    const found = visit(node.id);
    if (found) return found;
  }
  return null;
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

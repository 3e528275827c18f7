/**
 * Checks on documents that come from outside (an imported file, pasted
 * JSON) that a schema cannot express: keys that would rewrite prototypes, and
 * a run's flow snapshot that does not hang together.
 */
import { parsePortRef, type FlowDocument } from './document';
import { groupIssues } from './groups';
import { formatPath, type FlowIssue } from './issues';

/** A place in a parsed file: its value, and the key that led there from its parent. */
interface Place {
  value: object;
  key: string | number;
  parent: Place | null;
}

/**
 * The JSON path of the first `__proto__` key in a parsed file, or null.
 * `JSON.parse` keeps such a key as a plain property, but copying it into a
 * new object (as schema parsing does) sets that object's prototype instead,
 * so what it holds would vanish without a word. Walked with a stack, not
 * recursion: a file may nest deeper than the call stack goes. Each place
 * keeps a link to its parent, not a copy of its whole path, so a deep file
 * costs its size, not its depth squared; the path is spelled out once found.
 */
export function protoKeyPath(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const stack: Place[] = [{ value, key: '', parent: null }];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const node = top.value;
    if (Array.isArray(node)) {
      node.forEach((item, i) => {
        if (typeof item === 'object' && item !== null)
          stack.push({ value: item as object, key: i, parent: top });
      });
      continue;
    }
    if (Object.hasOwn(node, '__proto__')) return formatPath([...pathTo(top), '__proto__']);
    for (const [key, item] of Object.entries(node))
      if (typeof item === 'object' && item !== null)
        stack.push({ value: item as object, key, parent: top });
  }
  return null;
}

/** The keys from the file's root down to `place`. */
function pathTo(place: Place): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at = place; at.parent; at = at.parent) path.push(at.key);
  return path.reverse();
}

/** A finding for the first `__proto__` key, if there is one. */
export function protoKeyIssues(value: unknown): FlowIssue[] {
  const path = protoKeyPath(value);
  return path === null
    ? []
    : [
        {
          path,
          message:
            'a key named "__proto__" is not allowed (it would replace the object\'s prototype)',
        },
      ];
}

/**
 * What makes a run's flow snapshot incoherent whatever the catalog says: two
 * nodes with one id, an edge from or to a node that is not there. Kinds and
 * params are not checked: the catalog may have changed since the run ran.
 */
export function snapshotIssues(flow: FlowDocument): FlowIssue[] {
  const issues: FlowIssue[] = [];
  const ids = new Set<string>();
  flow.nodes.forEach((node, i) => {
    if (ids.has(node.id))
      issues.push({ path: `flow.nodes[${i}].id`, message: `duplicate node id '${node.id}'` });
    ids.add(node.id);
  });
  flow.edges.forEach((edge, i) => {
    const missing = [edge.from, edge.to]
      .map((ref) => parsePortRef(ref).node)
      .find((id) => !ids.has(id));
    if (missing !== undefined)
      issues.push({
        path: `flow.edges[${i}]`,
        message: `edge ${edge.from} → ${edge.to}: no node '${missing}'`,
      });
  });
  // Groups are layout only, but a group naming a node that is not there is still incoherent.
  for (const issue of groupIssues(flow)) issues.push({ ...issue, path: `flow.${issue.path}` });
  return issues;
}

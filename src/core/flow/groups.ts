/**
 * Groups (frames) of a flow: make, rename and dissolve them, keep them in
 * step when nodes go, and find what is wrong with them. A group is layout
 * only: it names its nodes and a title, and its frame is the bounding box of
 * its nodes, computed when drawn rather than stored, so moving a node can
 * never leave a frame behind. Each node is in at most one group, so dragging
 * a frame has one meaning.
 */
import type { FlowDocument, FlowGroup } from './document';
import type { FlowIssue } from './issues';
import type { LayoutBox } from './layout';

/** Everything wrong with a flow's groups: duplicate ids, unknown nodes, a node in two groups. */
export function groupIssues(flow: FlowDocument): FlowIssue[] {
  const issues: FlowIssue[] = [];
  const nodes = new Set(flow.nodes.map((n) => n.id));
  const ids = new Set<string>();
  const owner = new Map<string, string>();
  (flow.groups ?? []).forEach((group, i) => {
    if (ids.has(group.id))
      issues.push({ path: `groups[${i}].id`, message: `duplicate group id '${group.id}'` });
    ids.add(group.id);
    group.nodes.forEach((id, j) => {
      const path = `groups[${i}].nodes[${j}]`;
      if (!nodes.has(id))
        issues.push({
          path,
          message: `group '${group.id}' names node '${id}', which the flow does not have`,
        });
      else if (owner.has(id))
        issues.push({
          path,
          message: `node '${id}' is in two groups, '${owner.get(id)!}' and '${group.id}' (a node may be in one group)`,
        });
      else owner.set(id, group.id);
    });
  });
  return issues;
}

/** The group holding node `id`, if any. */
export function groupOf(flow: FlowDocument, id: string): FlowGroup | undefined {
  return flow.groups?.find((g) => g.nodes.includes(id));
}

/** Groups without the nodes in `gone`; a group left empty goes too. */
export function withoutNodes(
  groups: readonly FlowGroup[] | undefined,
  gone: ReadonlySet<string>,
): FlowGroup[] | undefined {
  if (!groups) return undefined;
  return groups
    .map((g) =>
      g.nodes.some((id) => gone.has(id))
        ? { ...g, nodes: g.nodes.filter((id) => !gone.has(id)) }
        : g,
    )
    .filter((g) => g.nodes.length > 0);
}

/** A group id not yet used in `flow`: `group`, `group2`, … */
export function freshGroupId(flow: FlowDocument): string {
  const used = new Set((flow.groups ?? []).map((g) => g.id));
  if (!used.has('group')) return 'group';
  let n = 2;
  while (used.has(`group${n}`)) n++;
  return `group${n}`;
}

/**
 * Put nodes in a new group, titled `title`. A node already in another group
 * leaves it (a node is in one group at most); unknown ids are ignored.
 * Returns the flow unchanged when no listed node exists.
 */
export function groupNodes(
  flow: FlowDocument,
  ids: readonly string[],
  title = 'Group',
): { flow: FlowDocument; group: string | null } {
  const known = new Set(flow.nodes.map((n) => n.id));
  // Members in the flow's node order, so the same selection always gives the same group.
  const members = flow.nodes.map((n) => n.id).filter((id) => ids.includes(id) && known.has(id));
  if (members.length === 0) return { flow, group: null };
  const id = freshGroupId(flow);
  const kept = withoutNodes(flow.groups, new Set(members)) ?? [];
  return { flow: { ...flow, groups: [...kept, { id, title, nodes: members }] }, group: id };
}

/** Dissolve groups; their nodes stay where they are. */
export function ungroup(flow: FlowDocument, groupIds: readonly string[]): FlowDocument {
  if (!flow.groups?.some((g) => groupIds.includes(g.id))) return flow;
  const groups = flow.groups.filter((g) => !groupIds.includes(g.id));
  const { groups: _, ...rest } = flow;
  return groups.length > 0 ? { ...flow, groups } : rest;
}

/** Give a group a new title. */
export function retitleGroup(flow: FlowDocument, groupId: string, title: string): FlowDocument {
  if (!flow.groups?.some((g) => g.id === groupId && g.title !== title)) return flow;
  return { ...flow, groups: flow.groups.map((g) => (g.id === groupId ? { ...g, title } : g)) };
}

/** Space around the member nodes inside a frame; the title bar sits in `top`. */
export interface FramePadding {
  side: number;
  top: number;
}

export const defaultFramePadding: FramePadding = { side: 24, top: 40 };

/** The frame drawn for a group: the bounding box of its members' boxes, padded. */
export function frameOf(
  members: readonly LayoutBox[],
  padding: FramePadding = defaultFramePadding,
): { x: number; y: number; width: number; height: number } | null {
  if (members.length === 0) return null;
  const left = Math.min(...members.map((b) => b.x));
  const top = Math.min(...members.map((b) => b.y));
  const right = Math.max(...members.map((b) => b.x + b.width));
  const bottom = Math.max(...members.map((b) => b.y + b.height));
  return {
    x: left - padding.side,
    y: top - padding.top,
    width: right - left + 2 * padding.side,
    height: bottom - top + padding.top + padding.side,
  };
}

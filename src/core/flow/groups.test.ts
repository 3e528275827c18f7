import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { builtinCatalog } from '../nodes/index';
import type { FlowDocument } from './document';
import { describeIssues } from './issues';
import { frameOf, groupIssues, groupNodes, retitleGroup, ungroup, withoutNodes } from './groups';
import { snapshotIssues } from './untrusted';
import { parseFlow, validateFlow } from './validate';

function example(): FlowDocument {
  const raw = JSON.parse(
    readFileSync(new URL('../../examples/spirals-mlp.flow.json', import.meta.url), 'utf8'),
  ) as unknown;
  const parsed = parseFlow(raw);
  if (!parsed.ok) throw new Error(describeIssues(parsed.issues));
  return parsed.flow;
}

describe('groups', () => {
  it('group, retitle and ungroup, without touching nodes or edges', () => {
    const flow = example();
    const { flow: grouped, group } = groupNodes(flow, ['split', 'data', 'nope']);
    expect(group).toBe('group');
    expect(grouped.groups).toEqual([{ id: 'group', title: 'Group', nodes: ['data', 'split'] }]);
    expect(grouped.nodes).toBe(flow.nodes);
    expect(grouped.edges).toBe(flow.edges);
    expect(validateFlow(grouped, builtinCatalog)).toEqual([]);

    const titled = retitleGroup(grouped, 'group', 'Data prep');
    expect(titled.groups?.[0]?.title).toBe('Data prep');
    expect(ungroup(titled, ['group'])).toEqual(flow);
  });

  it('a node joins one group at most; regrouping moves it', () => {
    const first = groupNodes(example(), ['data', 'split']).flow;
    const second = groupNodes(first, ['split', 'model']);
    expect(second.group).toBe('group2');
    expect(second.flow.groups?.map((g) => [g.id, g.nodes])).toEqual([
      ['group', ['data']],
      ['group2', ['split', 'model']],
    ]);
    expect(groupIssues(second.flow)).toEqual([]);
  });

  it('deleted nodes leave their group, and an emptied group goes', () => {
    const flow = groupNodes(groupNodes(example(), ['data', 'split']).flow, ['eval']).flow;
    expect(withoutNodes(flow.groups, new Set(['data', 'eval']))).toEqual([
      { id: 'group', title: 'Group', nodes: ['split'] },
    ]);
  });

  it('validation names the group and the node: unknown node, node in two groups', () => {
    const flow: FlowDocument = {
      ...example(),
      groups: [
        { id: 'prep', title: 'Prep', nodes: ['data', 'ghost'] },
        { id: 'more', title: 'More', nodes: ['data'] },
      ],
    };
    const messages = validateFlow(flow, builtinCatalog);
    expect(messages).toContainEqual({
      path: 'groups[0].nodes[1]',
      message: "group 'prep' names node 'ghost', which the flow does not have",
    });
    expect(messages).toContainEqual({
      path: 'groups[1].nodes[0]',
      message: "node 'data' is in two groups, 'prep' and 'more' (a node may be in one group)",
    });
  });

  it("a run's flow snapshot with a group naming a missing node is incoherent", () => {
    const flow: FlowDocument = {
      ...example(),
      groups: [{ id: 'prep', title: 'Prep', nodes: ['ghost'] }],
    };
    expect(snapshotIssues(flow)).toEqual([
      {
        path: 'flow.groups[0].nodes[0]',
        message: "group 'prep' names node 'ghost', which the flow does not have",
      },
    ]);
  });

  it('a file with groups parses back the same; an empty group is refused by path', () => {
    const flow = groupNodes(example(), ['data']).flow;
    const again = parseFlow(JSON.parse(JSON.stringify(flow)));
    expect(again.ok && again.flow).toEqual(flow);
    const empty = parseFlow({ ...flow, groups: [{ id: 'g', title: '', nodes: [] }] });
    expect(empty.ok).toBe(false);
    expect(!empty.ok && empty.issues[0]?.path).toBe('groups[0].nodes');
  });

  it('the frame is the padded bounding box of its members', () => {
    expect(
      frameOf(
        [
          { id: 'a', x: 0, y: 0, width: 100, height: 50 },
          { id: 'b', x: 200, y: 100, width: 100, height: 50 },
        ],
        { side: 10, top: 30 },
      ),
    ).toEqual({ x: -10, y: -30, width: 320, height: 190 });
    expect(frameOf([])).toBeNull();
  });
});

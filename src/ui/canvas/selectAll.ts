/**
 * Ctrl/⌘+A on the canvas selects every node of the flow, as in every editor.
 * It is handled on the canvas itself (which takes the focus when its pane is
 * clicked), so the same keys still select the text of a field, or of the
 * page anywhere else. Group frames are drawn around nodes but are not nodes
 * of the flow: they stay unselected.
 */
import { useStoreApi, type NodeChange } from '@xyflow/react';
import { useCallback, type KeyboardEvent } from 'react';
import { typing } from '../shortcuts';
import { groupOfNodeId, type ShownNode } from './groupNodes';

/** Whether a key press is Ctrl/⌘+A (by physical key, so other layouts work too). */
function isSelectAll(event: KeyboardEvent): boolean {
  return (
    (event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && event.code === 'KeyA'
  );
}

/** The canvas's key handler for Ctrl/⌘+A; other keys pass through untouched. */
export function useSelectAll(): (event: KeyboardEvent) => void {
  const flow = useStoreApi<ShownNode>();
  return useCallback(
    (event: KeyboardEvent) => {
      if (!isSelectAll(event) || typing(event.target)) return;
      event.preventDefault();
      const { nodes, triggerNodeChanges } = flow.getState();
      const changes: NodeChange<ShownNode>[] = [];
      for (const node of nodes) {
        const selected = groupOfNodeId(node.id) === null;
        if (Boolean(node.selected) !== selected)
          changes.push({ type: 'select', id: node.id, selected });
      }
      if (changes.length > 0) triggerNodeChanges(changes);
    },
    [flow],
  );
}

/**
 * A group's frame on the canvas: a titled box behind its nodes. Drag it by
 * its title bar to move the nodes with it; double-click the title to rename
 * it. The body lets clicks through, so a box selection or a click on the
 * canvas inside a frame works as it does elsewhere.
 */
import type { NodeProps } from '@xyflow/react';
import { memo, useState } from 'react';
import { retitleGroup } from '../../core/flow/groups';
import { useEditorStore } from '../store/context';
import type { GroupCanvasNode } from './groupNodes';
import './layout.css';

function GroupNodeViewBase({ data, selected }: NodeProps<GroupCanvasNode>) {
  const store = useEditorStore();
  const [editing, setEditing] = useState(false);
  const { group, title, color } = data;

  const commit = (value: string) => {
    setEditing(false);
    const next = value.trim();
    if (next === '' || next === title) return;
    store.getState().changeDoc({
      label: `Rename group ${group} to ${next}`,
      apply: (doc) => retitleGroup(doc, group, next),
    });
  };

  return (
    <div
      className={`fb-group${selected ? ' fb-selected' : ''}`}
      data-testid={`group-${group}`}
      style={color ? { borderColor: color } : undefined}
      role="group"
      aria-label={`Group ${title}`}
    >
      <div
        className="fb-group-title"
        style={color ? { background: color } : undefined}
        onDoubleClick={() => setEditing(true)}
      >
        {editing ? (
          <input
            className="nodrag nopan"
            aria-label="Group title"
            defaultValue={title}
            autoFocus
            onBlur={(e) => commit(e.currentTarget.value)}
            onKeyDown={(e) => {
              e.stopPropagation();
              if (e.key === 'Enter') commit(e.currentTarget.value);
              if (e.key === 'Escape') setEditing(false);
            }}
          />
        ) : (
          <span title="Double-click to rename">{title}</span>
        )}
      </div>
    </div>
  );
}

export const GroupNodeView = memo(GroupNodeViewBase);

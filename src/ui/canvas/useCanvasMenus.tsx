/**
 * The canvas's pop-ups: the context menu (right-click, or the context-menu
 * key / Shift+F10 on a focused node) and quick add (double-click on the
 * empty canvas). Returns the props the canvas passes to React Flow and what
 * it draws above it.
 */
import { useReactFlow } from '@xyflow/react';
import {
  useCallback,
  useMemo,
  useState,
  type KeyboardEvent,
  type MouseEvent,
  type ReactNode,
} from 'react';
import { useEditorStore } from '../store/context';
import { ContextMenu, type MenuTarget } from './ContextMenu';
import { QuickAdd } from './QuickAdd';
import { flowNodeIds } from './selection-actions';

type Open = { menu: MenuTarget } | { quickAdd: Omit<MenuTarget, 'nodes'> } | null;

export function useCanvasMenus(): {
  flowProps: {
    onNodeContextMenu: (event: MouseEvent, node: { id: string }) => void;
    onSelectionContextMenu: (event: MouseEvent) => void;
    onPaneContextMenu: (event: MouseEvent | globalThis.MouseEvent) => void;
    onDoubleClick: (event: MouseEvent) => void;
    zoomOnDoubleClick: false;
  };
  onKeyDown: (event: KeyboardEvent) => void;
  overlay: ReactNode;
} {
  const store = useEditorStore();
  const flow = useReactFlow();
  const [open, setOpen] = useState<Open>(null);
  const close = useCallback(() => setOpen(null), []);

  const selected = useCallback(
    () =>
      flowNodeIds(
        store,
        flow
          .getNodes()
          .filter((n) => n.selected)
          .map((n) => n.id),
      ),
    [store, flow],
  );
  const place = useCallback(
    (x: number, y: number) => ({ screen: { x, y }, at: flow.screenToFlowPosition({ x, y }) }),
    [flow],
  );

  /** The menu of node `id`: the whole selection when it is part of it. */
  const openOnNode = useCallback(
    (id: string, x: number, y: number) => {
      if (flowNodeIds(store, [id]).length === 0) return;
      const selection = selected();
      const nodes = selection.includes(id) ? selection : [id];
      store.getState().selectNode(id);
      setOpen({ menu: { ...place(x, y), nodes } });
    },
    [store, selected, place],
  );

  const onKeyDown = (event: KeyboardEvent) => {
    if (!(event.key === 'ContextMenu' || (event.shiftKey && event.key === 'F10'))) return;
    const element = (event.target as Element).closest<HTMLElement>('.react-flow__node');
    const id = element?.dataset.id;
    if (!element || id === undefined) return;
    event.preventDefault();
    const box = element.getBoundingClientRect();
    openOnNode(id, box.x + 12, box.y + box.height / 2);
  };

  const overlay =
    open === null ? null : 'menu' in open ? (
      <ContextMenu
        target={open.menu}
        onClose={close}
        onAddNode={(target) => setOpen({ quickAdd: target })}
      />
    ) : (
      <QuickAdd screen={open.quickAdd.screen} at={open.quickAdd.at} onClose={close} />
    );

  // The same handlers on every render: React Flow hands them to each of the
  // node views, which would all re-render (a drag renders the canvas per frame).
  const flowProps = useMemo(
    () => ({
      onNodeContextMenu: (event: MouseEvent, node: { id: string }) => {
        event.preventDefault();
        const keyboard = event.clientX === 0 && event.clientY === 0;
        const box = (event.target as Element).closest('.react-flow__node')?.getBoundingClientRect();
        if (keyboard && box) openOnNode(node.id, box.x + 12, box.y + box.height / 2);
        else openOnNode(node.id, event.clientX, event.clientY);
      },
      onSelectionContextMenu: (event: MouseEvent) => {
        event.preventDefault();
        const nodes = selected();
        if (nodes.length > 0) setOpen({ menu: { ...place(event.clientX, event.clientY), nodes } });
      },
      onPaneContextMenu: (event: MouseEvent | globalThis.MouseEvent) => {
        event.preventDefault();
        setOpen({ menu: { ...place(event.clientX, event.clientY), nodes: [] } });
      },
      onDoubleClick: (event: MouseEvent) => {
        if (!(event.target as Element).classList.contains('react-flow__pane')) return;
        setOpen({ quickAdd: place(event.clientX, event.clientY) });
      },
      zoomOnDoubleClick: false as const,
    }),
    [openOnNode, selected, place],
  );

  return { flowProps, onKeyDown, overlay };
}

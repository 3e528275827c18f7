/**
 * Laying out a flow as it opens is part of opening it: saved (the revision
 * moves, so the autosave writes it) but no step of the history, so the first
 * undo never puts the nodes back where the file had them piled up.
 */
import { describe, expect, it } from 'vitest';
import type { FlowDocument } from '../../core/flow/document';
import type { FlowId } from '../../core/run/record';
import { createEditorStore, edits } from './editor';

const flow: FlowDocument = {
  format: 'flowbench.flow/1',
  name: 'f',
  inputs: [],
  outputs: [],
  nodes: [{ id: 'a', kind: 'data.synthetic', params: {}, position: { x: 0, y: 0 } }],
  edges: [],
};
const moved = (x: number) => edits.moveNodes(new Map([['a', { x, y: 0 }]])).apply(flow);

describe('settleDoc', () => {
  it('changes the document just opened without a history step', () => {
    const store = createEditorStore();
    store.getState().openFlow('f' as FlowId, flow);
    store.getState().settleDoc(moved(300));
    expect(store.getState().doc?.nodes[0]?.position.x).toBe(300);
    expect(store.getState().revision).toBe(1);
    expect(store.getState().history.past).toEqual([]);
  });

  it('leaves a document the person has edited alone', () => {
    const store = createEditorStore();
    store.getState().openFlow('f' as FlowId, flow);
    store.getState().changeDoc(edits.moveNodes(new Map([['a', { x: 10, y: 0 }]])));
    store.getState().settleDoc(moved(300));
    expect(store.getState().doc?.nodes[0]?.position.x).toBe(10);
    store.getState().undo();
    expect(store.getState().doc).toBe(flow);
  });
});

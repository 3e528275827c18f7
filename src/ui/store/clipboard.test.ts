import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { flowDocumentSchema } from '../../core/flow/document';
import { copySelection, freshId, parseClipboard, pasteInto } from './clipboard';

const example = flowDocumentSchema.parse(
  JSON.parse(readFileSync('src/examples/spirals-mlp.flow.json', 'utf8')),
);

it('copies the selected nodes and only the edges between them', () => {
  const payload = copySelection(example, new Set(['data', 'split', 'train']));
  expect(payload.nodes.map((n) => n.id)).toEqual(['data', 'split', 'train']);
  expect(payload.edges).toEqual([
    { from: 'data.dataset', to: 'split.dataset' },
    { from: 'split.train', to: 'train.dataset' },
  ]);
});

it('pastes with fresh ids, rewired edges and offset positions', () => {
  const payload = copySelection(example, new Set(['data', 'split']));
  const { nodes, edges } = pasteInto(example, payload, { x: 40, y: 40 });
  expect(nodes.map((n) => n.id)).toEqual(['data2', 'split2']);
  expect(nodes[0]!.position).toEqual({ x: 40, y: 80 });
  expect(edges).toEqual([{ from: 'data2.dataset', to: 'split2.dataset' }]);
  expect(nodes[0]!.params).toEqual(example.nodes[0]!.params);
  expect(nodes[0]!.params).not.toBe(example.nodes[0]!.params);
});

it('keeps ids when pasting into a flow that does not have them', () => {
  const payload = copySelection(example, new Set(['model']));
  const empty = { ...example, nodes: [], edges: [] };
  expect(pasteInto(empty, payload, { x: 0, y: 0 }).nodes[0]!.id).toBe('model');
  expect(freshId('train2', new Set(['train2', 'train3']))).toBe('train4');
});

it('reads back only clipboard payloads', () => {
  const payload = copySelection(example, new Set(['model']));
  expect(parseClipboard(JSON.stringify(payload))).toEqual(payload);
  expect(parseClipboard('{"format":"flowbench.flow/1","nodes":[],"edges":[]}')).toBeNull();
  expect(parseClipboard('not json')).toBeNull();
});

import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { flowDocumentSchema } from '../flow/document';
import { builtinCatalog } from '../nodes';
import { batchIssues } from './batch';

const example = flowDocumentSchema.parse(
  JSON.parse(readFileSync('src/examples/spirals-mlp.flow.json', 'utf8')),
);

function withLimits(node: string, rateLimits: Record<string, number>) {
  return {
    ...example,
    nodes: example.nodes.map((n) => (n.id === node ? { ...n, rateLimits } : n)),
  };
}

it('allows a rate-limit interval on a streaming port', () => {
  expect(batchIssues(withLimits('train', { loss: 250 }), builtinCatalog)).toEqual([]);
});

it('refuses one on a port that emits once, with the explanation and the fix', () => {
  const issues = batchIssues(withLimits('eval', { accuracy: 500 }), builtinCatalog);
  expect(issues).toEqual([
    {
      path: 'nodes[4].rateLimits.accuracy',
      message:
        "node 'eval' output 'accuracy' has a rate-limit interval of 500 ms but is not a streaming port: " +
        'a batch run has no timer to release the value the interval holds back. ' +
        "Remove the interval, or put it on a streaming output such as 'train.loss'.",
    },
  ]);
});

it('names a rate limit on a port the node does not have', () => {
  expect(batchIssues(withLimits('train', { speed: 10 }), builtinCatalog)[0]?.message).toBe(
    "node 'train' has no output port 'speed' to rate-limit",
  );
});

it('is refused by the flow schema when the interval is not a positive number', () => {
  const bad = { ...example, nodes: [{ ...example.nodes[0], rateLimits: { dataset: -1 } }] };
  expect(flowDocumentSchema.safeParse(bad).success).toBe(false);
});

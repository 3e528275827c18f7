/** The example flows as they ship: valid, runnable as far as a catalog can tell, files as named. */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeIssues } from '../core/flow/issues';
import { parseFlow, validateFlow } from '../core/flow/validate';
import { builtinCatalog } from '../core/nodes';
import { buildMlpInference } from '../core/onnx/mlp';
import { sha256Hex } from '../core/run/digest';

const dir = new URL('./', import.meta.url);
const flows = readdirSync(dir).filter((f) => f.endsWith('.flow.json'));

describe('the examples', () => {
  it.each(flows)('%s is a valid flow', (file) => {
    const parsed = parseFlow(JSON.parse(readFileSync(new URL(file, dir), 'utf8')));
    if (!parsed.ok) throw new Error(describeIssues(parsed.issues));
    expect(describeIssues(validateFlow(parsed.flow, builtinCatalog))).toBe('');
  });

  it('ships the ONNX model our graph builder makes, under the digest the example names', async () => {
    const shipped = new Uint8Array(readFileSync(new URL('blobs-sign.onnx', dir)));
    // logits [x, -x]: tells two blobs apart by the sign of x.
    const built = buildMlpInference(
      { inputSize: 2, hidden: [], outputSize: 2, activation: 'relu' },
      {
        layout: [
          { name: 'W0', dims: [2, 2] },
          { name: 'b0', dims: [2] },
        ],
        values: { W0: Float32Array.from([1, -1, 0, 0]), b0: new Float32Array(2) },
      },
    ).model;
    expect(shipped).toEqual(built);
    const flow = JSON.parse(readFileSync(new URL('onnx-inference.flow.json', dir), 'utf8')) as {
      nodes: { id: string; params: Record<string, unknown> }[];
    };
    const infer = flow.nodes.find((n) => n.id === 'infer');
    expect(infer?.params.file).toBe(`sha256:${await sha256Hex(shipped)}`);
  });
});

/**
 * Bypass: a node switched off without unwiring it (as in ComfyUI). The node
 * does not run; each of its outputs passes on the value of the node's first
 * input of the same type, so a bypassed step in a chain is stepped over. An
 * output with no such input has nothing to pass on, and what needs it is
 * skipped with a reason that names the bypassed node — never fed a stand-in.
 */
import type { NodeKind } from '../catalog/kind';

/** Why a bypassed node itself did not run. */
export const BYPASSED = 'bypassed';

/** The values a bypassed node passes on, by output port, from the inputs it received. */
export function passThrough(
  kind: Pick<NodeKind, 'inputs' | 'outputs'>,
  inputs: Readonly<Record<string, unknown>>,
): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const output of kind.outputs) {
    const source = kind.inputs.find((i) => i.type === output.type && Object.hasOwn(inputs, i.name));
    if (source) out.set(output.name, inputs[source.name]);
  }
  return out;
}

/** Why a node that needs output `port` of bypassed node `node` is skipped. */
export function bypassedUpstream(node: string, port: string, type: string): string {
  return `skipped: node '${node}' is bypassed and has no ${type} input to pass on as '${port}'`;
}

/**
 * Device labels: what a run cannot run without. A run forced to `webgpu`, or
 * a node whose `backend` param is `webgpu`, requires WebGPU; an engine
 * without an adapter leaves such a run queued with its reason instead of
 * failing it, so it can still run where WebGPU exists.
 */
import type { Backend, BackendChoice } from '../runtime/tensor-runtime';
import type { FlowDocument } from '../flow/document';

export function requiredDevices(flow: FlowDocument, choice: BackendChoice): Backend[] {
  const nodeRequires = flow.nodes.some((node) => node.params.backend === 'webgpu');
  return choice === 'webgpu' || nodeRequires ? ['webgpu'] : [];
}

export function waitingReason(device: Backend): string {
  return `Waiting for an engine with ${device}`;
}

/**
 * The first device of `requires` that an engine lacks (it has WASM always,
 * WebGPU only with an adapter), or undefined when it can run the run.
 */
export function missingDevice(
  requires: readonly Backend[],
  hasAdapter: boolean,
): Backend | undefined {
  return requires.find((device) => device === 'webgpu' && !hasAdapter);
}

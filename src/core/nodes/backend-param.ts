/** The `backend` param that every node running ONNX sessions declares, worded once. */
import type { EnumParam } from '../catalog/params';
import { nodeBackends, type NodeBackend } from '../runtime/tensor-runtime';

export function backendParam(
  where: 'Where inference runs' | 'Where the steps run',
): EnumParam<NodeBackend> {
  return {
    type: 'enum',
    options: nodeBackends,
    default: 'auto',
    description: `${where}: auto follows the run; webgpu requires it (the run waits for an engine with WebGPU); prefer-webgpu falls back to wasm.`,
  };
}

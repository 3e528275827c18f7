/**
 * The model worker's entry: the engine worker starts one and runs every
 * onnxruntime session in it (see `engine/remote-runtime.ts` for why).
 * Everything with substance lives in `engine/model-host.ts`.
 */
import { serveModels } from './engine/model-host';
import { browserOrtLoader, OrtRuntime } from './engine/ort-runtime';

serveModels(
  self,
  (info, runBackend) => new OrtRuntime(info, browserOrtLoader, runBackend),
  navigator.locks,
);

/**
 * Shared set-up for engine tests under Node: journal a run the way the UI
 * does, and driver options over real onnxruntime-web (WASM) with real timers.
 */
import * as ort from 'onnxruntime-web';
import { readFileSync } from 'node:fs';
import { inProcessProducers } from '../../src/core/live/producer-host';
import { builtinCatalog } from '../../src/core/nodes';
import type { EngineInfo } from '../../src/core/runtime/tensor-runtime';
import { flowDocumentSchema, type FlowDocument } from '../../src/core/flow/document';
import { queuedRun } from '../../src/core/run/request';
import type { RunId, RunRow } from '../../src/core/run/record';
import { journalRun } from '../../src/db/runs';
import type { FlowbenchDb } from '../../src/db/schema';
import { engineInfo, OrtRuntime } from './ort-runtime';
import type { RunDriverOptions } from './run-driver';

export function loadFlow(path: string): FlowDocument {
  return flowDocumentSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
}

let counter = 0;

export async function journalTestRun(
  db: FlowbenchDb,
  flow: FlowDocument,
  params: RunRow['params'],
  changes: Partial<RunRow> = {},
): Promise<RunId> {
  const id = `run-${String(++counter).padStart(4, '0')}` as RunId;
  const request = {
    flowId: null,
    flowVersion: 1,
    flow,
    params,
    seed: changes.seed ?? 0,
    backendChoice: changes.backendChoice ?? 'auto',
    cause: 'ui' as const,
  };
  await journalRun(db, { ...(await queuedRun(request, id, new Date())), ...changes });
  return id;
}

export function nodeRuntime(info: EngineInfo = engineInfo(null)): RunDriverOptions['runtimeFor'] {
  return (choice) =>
    Promise.resolve(
      new OrtRuntime(info, () => Promise.resolve(ort), OrtRuntime.resolve(choice, info)),
    );
}

export function testDriverOptions(
  db: FlowbenchDb,
): Pick<RunDriverOptions, 'db' | 'catalog' | 'runtimeFor' | 'producers' | 'now' | 'setTimer'> {
  return {
    db,
    catalog: builtinCatalog,
    runtimeFor: nodeRuntime(),
    producers: inProcessProducers,
    now: () => Date.now(),
    setTimer: (fire, ms) => {
      const timer = setTimeout(fire, ms);
      return () => clearTimeout(timer);
    },
  };
}

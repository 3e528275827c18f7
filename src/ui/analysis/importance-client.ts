/**
 * The page's side of the importance worker: one worker for the page, started
 * on first use; each request gets its own id, and a newer request for the
 * same view makes the older one's answer stale (the hook drops it).
 */
import { useEffect, useMemo, useState } from 'react';
import type {
  ImportanceReply,
  ImportanceRequest,
  ImportanceRow,
  ParamImportance,
} from '../../core/run/importance';

let worker: Worker | undefined;
let nextId = 1;
const waiting = new Map<number, (reply: ImportanceReply) => void>();

function importanceWorker(): Worker {
  if (!worker) {
    worker = new Worker(new URL('../../../workers/importance.worker.ts', import.meta.url), {
      type: 'module',
      name: 'flowbench-importance',
    });
    worker.onmessage = (event: MessageEvent<ImportanceReply>) => {
      waiting.get(event.data.id)?.(event.data);
      waiting.delete(event.data.id);
    };
  }
  return worker;
}

function rankInWorker(
  rows: readonly ImportanceRow[],
  params: readonly string[],
): Promise<ParamImportance[]> {
  const id = nextId++;
  const request: ImportanceRequest = { id, rows, params, options: { seed: 0 } };
  return new Promise((resolve, reject) => {
    waiting.set(id, (reply) => {
      if (reply.ok) resolve(reply.result);
      else reject(new Error(`Parameter importance failed: ${reply.message}`));
    });
    importanceWorker().postMessage(request);
  });
}

/** The params ranked for `rows` (computed in the worker); undefined while it works. */
export function useImportance(
  rows: readonly ImportanceRow[],
  params: readonly string[],
  failed: (error: unknown) => void,
): ParamImportance[] | undefined {
  const [result, setResult] = useState<{ key: string; ranked: ParamImportance[] }>();
  const key = useMemo(() => JSON.stringify([rows, params]), [rows, params]);
  useEffect(() => {
    let current = true;
    const [r, p] = JSON.parse(key) as [ImportanceRow[], string[]];
    if (r.length < 2 || p.length === 0) return;
    rankInWorker(r, p).then(
      (ranked) => {
        if (current) setResult({ key, ranked });
      },
      (error: unknown) => {
        if (current) failed(error);
      },
    );
    return () => {
      current = false;
    };
  }, [key, failed]);
  return result?.key === key ? result.ranked : undefined;
}

/**
 * A parity check of a whole run, as plain data for the protocol and the UI.
 *
 * A `ParityReport` holds both runs' tensors; what a person needs to see is,
 * per node and per request, each output and metric `identical` or where it
 * first differs. `summariseParity` keeps exactly that.
 */
import type { ParityReport } from './parity.ts';

/** One compared output, metric or status of one request. */
export interface ParityLine {
  readonly request: string;
  readonly kind: 'status' | 'output' | 'metric';
  readonly name: string;
  readonly identical: boolean;
  /** Where it first differs, in words; null when identical. */
  readonly detail: string | null;
}

/** The parity of one node's requests. */
export interface NodeParity {
  readonly node: string;
  readonly identical: boolean;
  readonly requests: number;
  readonly ticks: { readonly serial: number; readonly interleaved: number };
  readonly lines: readonly ParityLine[];
}

/** The parity of every program a run ran. */
export interface RunParity {
  /** True when the re-run ended ok, ran at least one program, and every line is identical. */
  readonly identical: boolean;
  /** How the re-run ended, and why when it did not end ok. */
  readonly status: 'ok' | 'error' | 'cancelled';
  readonly reason: string;
  /** The backend the run's programs ran on. */
  readonly backend: string;
  readonly nodes: readonly NodeParity[];
}

/** One node's report as plain data. */
export function summariseNodeParity(node: string, report: ParityReport): NodeParity {
  return {
    node,
    identical: report.identical,
    requests: report.serial.results.length,
    ticks: { serial: report.serial.ticks, interleaved: report.interleaved.ticks },
    lines: report.entries.map((e) => ({
      request: e.request,
      kind: e.kind,
      name: e.name,
      identical: e.identical,
      detail: e.difference?.detail ?? null,
    })),
  };
}

/** A run's parity from its nodes' reports and how the re-run ended. */
export function summariseRunParity(
  nodes: readonly NodeParity[],
  status: RunParity['status'],
  reason: string,
  backend: string,
): RunParity {
  return {
    identical: status === 'ok' && nodes.length > 0 && nodes.every((n) => n.identical),
    status,
    reason:
      status === 'ok' && nodes.length === 0 ? 'this run has no model programs to compare' : reason,
    backend,
    nodes,
  };
}

/**
 * What `flowbench run` prints: a live progress line per running node (steps,
 * steps/s, latest loss) on a terminal, a plain line per tenth of a node's
 * steps when stdout is a pipe or a file, or one JSON object per event with
 * `--json`, for scripts. The summary at the end is made from the run file
 * itself, so it says what was recorded, not what was seen go by.
 */
import { MultiBar, Presets, type SingleBar } from 'cli-progress';
import type { RunExport } from '../src/core/run/export';
import type { RunId, RunStatus } from '../src/core/run/record';
import type { FileBeside } from './files';

/** Where a run's flow came from when it runs a recorded run again: the run file or bundle, and the run's id. */
export interface RanFrom {
  readonly file: string;
  readonly runId: string;
  /** Files a run bundle gave, of those the flow reads. */
  readonly files: number;
}

/** `from X: run Y's flow, params and seed`, as a person reads it. */
export const describeFrom = ({ file, runId, files }: RanFrom): string =>
  `from ${file}: run ${runId}'s flow, params and seed` +
  (files > 0 ? `, and the ${files === 1 ? 'file' : `${files} files`} it read` : '');

/** Every event `--json` prints, one object a line. */
export type RunEvent =
  | {
      event: 'started';
      runId: RunId;
      flow: string;
      /** The recorded run it runs again (its flow, params, seed and a bundle's files). */
      from?: RanFrom;
      /** Files the flow names by digest that were found beside it, not given by `--file`. */
      beside?: readonly FileBeside[];
    }
  | { event: 'progress'; node: string; done: number; total: number; stepsPerSecond: number | null }
  | { event: 'live'; node: string; port: string; value: number }
  | {
      event: 'finished';
      runId: RunId;
      status: RunStatus;
      statusReason: string;
      file: string;
      /** The run bundle written beside it (`--bundle`). */
      bundle?: string;
    }
  | { event: 'error'; code: string; category: string; message: string };

/** Where the events of one run go. */
export interface Reporter {
  event(event: RunEvent): void;
  /** The run has ended and its file is written (or it never started). */
  close(file?: RunExport): void;
}

/** The number a progress line shows as "loss": a port named so, else the node's first stream. */
function lossOf(ports: Map<string, number>): number | undefined {
  return ports.get('loss') ?? ports.values().next().value;
}

/**
 * A value as the command's tables and progress lines show it: a number to
 * four significant digits (so a column of them lines up: 0.9000 beside
 * 0.9467), an integer whole, anything else as JSON, nothing as —.
 */
export function formatValue(value: unknown): string {
  if (value === undefined) return '—';
  if (typeof value !== 'number') return JSON.stringify(value);
  if (Number.isInteger(value) && Math.abs(value) < 1e6) return String(value);
  return Math.abs(value) >= 1e4 || Math.abs(value) < 1e-3
    ? value.toExponential(3)
    : value.toPrecision(4);
}

export function jsonReporter(write: (line: string) => void): Reporter {
  return {
    event: (event) => write(JSON.stringify(event)),
    close: () => undefined,
  };
}

/**
 * The width of a progress bar on a terminal `columns` wide: what the line's
 * words leave (some 64 columns for a long node name, 20,000 steps and their
 * rate and loss), 10 to 40. A line wider than the terminal is cut at its
 * edge, and what is cut is the loss: at 80 columns a 40-wide bar left
 * `train … 3000/3000 steps · 2768.1 steps/s` and no loss.
 */
export function barSize(columns: number | undefined): number {
  return Math.max(10, Math.min(40, (columns ?? 80) - 64));
}

/** Lines for a person: bars on a terminal, plain lines elsewhere; errors go to stderr. */
export function textReporter(out: NodeJS.WriteStream, err: NodeJS.WriteStream): Reporter {
  const latest = new Map<string, Map<string, number>>();
  const tty = out.isTTY;
  const bars = tty
    ? new MultiBar(
        {
          format: ' {node} {bar} {value}/{total} steps · {rate} steps/s · loss {loss}',
          barsize: barSize(out.columns),
          hideCursor: true,
          clearOnComplete: false,
          stream: out,
        },
        Presets.shades_classic,
      )
    : null;
  const nodeBars = new Map<string, SingleBar>();
  const printedTenth = new Map<string, number>();
  return {
    event(event) {
      if (event.event === 'started') {
        out.write(`run ${event.runId} of '${event.flow}'\n`);
        if (event.from) out.write(`${describeFrom(event.from)}\n`);
        for (const { at, path } of event.beside ?? [])
          out.write(`${at}: ${path}, found beside the flow (the bytes it names)\n`);
      } else if (event.event === 'live') {
        const ports = latest.get(event.node) ?? new Map<string, number>();
        ports.set(event.port, event.value);
        latest.set(event.node, ports);
        // A bar shows the latest value as it comes, between two steps' reports too.
        nodeBars.get(event.node)?.update({ loss: formatValue(lossOf(ports)) });
      } else if (event.event === 'progress') {
        const payload = {
          node: event.node,
          rate: event.stepsPerSecond === null ? '—' : event.stepsPerSecond.toFixed(1),
          loss: formatValue(lossOf(latest.get(event.node) ?? new Map<string, number>())),
        };
        if (bars) {
          const bar = nodeBars.get(event.node);
          if (bar) bar.update(event.done, { ...payload, total: event.total });
          else nodeBars.set(event.node, bars.create(event.total, event.done, payload));
          return;
        }
        const tenth = Math.floor((event.done / Math.max(event.total, 1)) * 10);
        if (tenth === printedTenth.get(event.node)) return;
        printedTenth.set(event.node, tenth);
        out.write(
          `${event.node}: ${event.done}/${event.total} steps · ${payload.rate} steps/s · loss ${payload.loss}\n`,
        );
      } else if (event.event === 'finished') {
        bars?.stop();
        out.write(`run ${event.runId} ended ${event.status}`);
        out.write(event.statusReason ? `: ${event.statusReason}\n` : '\n');
        out.write(`wrote ${event.file}\n`);
        if (event.bundle) out.write(`wrote ${event.bundle}\n`);
      } else {
        bars?.stop();
        err.write(`flowbench: ${event.message}\n`);
      }
    },
    close(file) {
      bars?.stop();
      if (file) out.write(summaryTable(file));
    },
  };
}

/**
 * Each node's outcome, time, steps (points of its first series) and the
 * last value of each series, in the flow's order of its nodes (as drawn,
 * not the record's, which is by name).
 */
export function summaryTable(file: RunExport): string {
  const order = new Map(file.flow.nodes.map((node, i) => [node.id, i]));
  const at = (node: string) => order.get(node) ?? order.size;
  const nodes = [...file.nodes].sort((a, b) => at(a.node) - at(b.node));
  const rows = nodes.map((node) => {
    const series = Object.entries(file.metrics).filter(([name]) =>
      name.startsWith(`${node.node}.`),
    );
    const steps = series[0]?.[1].length;
    const last = series.map(([name, points]) => {
      const point = points[points.length - 1];
      const value =
        point === undefined ? undefined : point[1] === null ? point[3] : formatValue(point[1]);
      return `${name.slice(node.node.length + 1)}=${value ?? '—'}`;
    });
    return [
      node.node,
      node.status,
      node.durationMs === null ? '—' : `${(node.durationMs / 1000).toFixed(2)} s`,
      steps === undefined ? '—' : String(steps),
      last.join(' ') || '—',
    ];
  });
  const table = [['node', 'status', 'time', 'points', 'last values'], ...rows];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  return (
    table
      .map((row) =>
        row
          .map((cell, i) => cell.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

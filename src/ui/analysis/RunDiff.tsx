/**
 * The run diff: two picked runs side by side. `Diff picked` (enabled with
 * exactly two runs picked) opens the dialog `Run diff`: what each ran with,
 * the params and seed (a differing row highlighted and marked `differs`),
 * the changes between the flows they ran (layout aside), what they ran on,
 * and per metric both final values and whether the series are identical.
 * The comparing is `core/run/diff.ts`; this only reads and shows it.
 */
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import {
  describeEdgeChange,
  describeNodeChange,
  flowsAlike,
  formatDiffValue,
} from '../../core/run/diff';
import { ENGINE_TOLERANCE } from '../../core/run/compare';
import type { RunId } from '../../core/run/record';
import { formatDuration, formatValue, shortId } from '../runs/format';
import { useEditorStore } from '../store/context';
import { readRunDiff, type RunDiffData } from './diff-data';
import './analysis.css';

/** The toolbar's button; the dialog while it is open. */
export function RunDiffButton({ picked }: { picked: readonly RunId[] }) {
  const [open, setOpen] = useState<readonly [RunId, RunId] | null>(null);
  const pair = picked.length === 2 ? ([picked[0]!, picked[1]!] as const) : null;
  const close = useCallback(() => setOpen(null), []);
  return (
    <>
      <button
        type="button"
        disabled={pair === null}
        title="Compare the two picked runs side by side"
        onClick={() => setOpen(pair)}
      >
        Diff picked
      </button>
      {open && <RunDiffDialog ids={open} onClose={close} />}
    </>
  );
}

function RunDiffDialog({ ids, onClose }: { ids: readonly [RunId, RunId]; onClose: () => void }) {
  const store = useEditorStore();
  const ref = useRef<HTMLDialogElement>(null);
  const [diff, setDiff] = useState<RunDiffData>();
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  useEffect(() => {
    let current = true;
    readRunDiff(ids[0], ids[1]).then(
      (data) => {
        if (current) setDiff(data);
      },
      (error: unknown) => {
        store.getState().alert(error instanceof Error ? error.message : String(error));
        onClose();
      },
    );
    return () => {
      current = false;
    };
  }, [ids, store, onClose]);

  return (
    <dialog
      ref={ref}
      className="fb-dialog fb-diff"
      aria-labelledby="run-diff-title"
      onClose={onClose}
    >
      <h2 id="run-diff-title">Run diff</h2>
      {diff ? <DiffBody diff={diff} /> : <p className="fb-muted">Reading the two runs…</p>}
      <button type="button" onClick={onClose}>
        Close
      </button>
    </dialog>
  );
}

const A_B = ['A', 'B'] as const;

/** A table of rows `[name, a, b, same]`, a differing row highlighted and marked. */
function SideBySide({
  name,
  head,
  rows,
}: {
  name: string;
  head: string;
  rows: readonly {
    key: string;
    label: ReactNode;
    a: ReactNode;
    b: ReactNode;
    same: boolean;
    /** What the last cell says instead of `same` or `differs`. */
    verdict?: string;
  }[];
}) {
  return (
    <table aria-label={name} className="fb-run-table fb-diff-table">
      <thead>
        <tr>
          <th scope="col">{head}</th>
          {A_B.map((side) => (
            <th scope="col" key={side}>
              {side}
            </th>
          ))}
          <th scope="col">
            <span className="fb-visually-hidden">Same or differs</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.key} className={row.same ? undefined : 'fb-diff-differs'}>
            <th scope="row">{row.label}</th>
            <td>{row.a}</td>
            <td>{row.b}</td>
            <td className={row.same ? 'fb-same' : 'fb-differs'}>
              {row.verdict ?? (row.same ? 'same' : 'differs')}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function DiffBody({ diff }: { diff: RunDiffData }) {
  const { a, b } = diff;
  const facts = [
    // Two runs always have two ids: naming them is no difference.
    { key: 'id', label: 'Run', a: shortId(a.id), b: shortId(b.id), same: true },
    { key: 'flow', label: 'Flow', a: a.flow, b: b.flow, same: a.flow === b.flow },
    { key: 'status', label: 'Status', a: a.status, b: b.status, same: a.status === b.status },
    {
      key: 'duration',
      label: 'Duration',
      a: formatDuration(a.durationMs),
      b: formatDuration(b.durationMs),
      // How long a run took is never the same twice; it is not a difference to highlight.
      same: true,
    },
    {
      key: 'digest',
      label: 'Params digest',
      a: <code className="fb-digest">{a.paramsDigest}</code>,
      b: <code className="fb-digest">{b.paramsDigest}</code>,
      same: a.paramsDigest === b.paramsDigest,
    },
  ];
  const changes = [
    ...diff.flow.nodes.map(describeNodeChange),
    ...diff.flow.edges.map(describeEdgeChange),
  ];
  return (
    <>
      <SideBySide name="Runs compared" head="What" rows={facts} />
      <section aria-label="Params" className="fb-run-part">
        <h3>Params and seed</h3>
        <SideBySide
          name="Params"
          head="Param"
          rows={diff.params.map((p) => ({
            key: p.name,
            label: p.name,
            a: formatDiffValue(p.a),
            b: formatDiffValue(p.b),
            same: p.same,
          }))}
        />
      </section>
      <section aria-label="Flow changes" className="fb-run-part">
        <h3>Flow, node by node</h3>
        {flowsAlike(diff.flow) ? (
          <p>The flows compute the same thing (where nodes sit on the canvas aside).</p>
        ) : (
          <ul className="fb-comparison">
            {changes.map((change) => (
              <li key={change} className="fb-differs">
                {change}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-label="Metrics" className="fb-run-part">
        <h3>Metrics</h3>
        <SideBySide
          name="Final values"
          head="Metric"
          rows={diff.metrics.map((m) => ({
            key: m.metric,
            label: m.metric,
            a: m.a === undefined ? '—' : formatValue(m.a),
            b: m.b === undefined ? '—' : formatValue(m.b),
            // Runs on different engines never match bit for bit; agreeing within the tolerance is their "same".
            same: m.identical || m.within !== undefined,
            ...(m.within !== undefined && { verdict: `within ${m.within}` }),
          }))}
        />
        <p className="fb-muted">
          A metric reads <em>same</em> only when its whole series is identical, value for value.
          Runs on different engines (onnxruntime-node&apos;s <code>cpu</code>, WASM, WebGPU) never
          are: theirs reads <em>within {ENGINE_TOLERANCE}</em> when every value agrees to that
          relative difference.
        </p>
      </section>
      <section aria-label="Fingerprints" className="fb-run-part">
        <h3>What they ran on</h3>
        {diff.fingerprints.length === 0 ? (
          <p className="fb-muted">Neither run recorded what it ran on.</p>
        ) : (
          <SideBySide
            name="Fingerprints"
            head="Fact"
            rows={diff.fingerprints.map((f) => ({ ...f, label: f.label }))}
          />
        )}
      </section>
    </>
  );
}

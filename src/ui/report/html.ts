/**
 * A portable report as one self-contained HTML file: it opens in any
 * browser, with no network and without Flowbench. Tables, the parallel
 * coordinates (SVG) and the run diff are written out here as markup; the
 * charts are drawn when the file opens, by uPlot and a small viewer, both
 * inlined, from the report's data inlined as JSON. So the charts stay
 * interactive (hover shows each run's value, drag zooms, double-click
 * resets) while the file stays one file. Runs grouped by a param are drawn
 * as the charts draw them: each group's mean, its min–max band filled
 * behind it, the smoothed mean over the faint raw one when smoothing was on.
 *
 * Everything that comes from a person (flow, run, metric and param names,
 * values) is escaped for where it goes: as text in markup, as JSON inside a
 * `<script type="application/json">` (no `<`, `>` or `&` left to close it),
 * and never into an attribute that loads or runs anything (no `href`, `src`,
 * `on…` or `style` from data; colours are checked to be `#rrggbb`). The
 * viewer puts names on the page as text only.
 */
import type uPlot from 'uplot';
import {
  axisPosition,
  axisValueAt,
  colourAxisOf,
  parallelAxes,
  runsInBrushes,
  type ParallelRun,
} from '../../core/run/parallel';
import { rampColour } from '../analysis/colour-ramp';
import { formatDiffValue } from '../../core/run/diff';
import type { InputValue } from '../../core/run/params';
import { formatValue } from '../../core/series/summary';
import type { ReportData } from './report-data';

/** What the report inlines besides its data: uPlot's script and stylesheet. */
export interface ReportAssets {
  readonly uplotScript: string;
  readonly uplotStyle: string;
}

/** `text` safe as text content or a quoted attribute value in HTML. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** `value` as JSON that cannot end the `<script>` element it sits in, nor open a comment there. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Script source (ours or uPlot's) safe inside `<script>`: no `</script` or `<!--` in it. */
function scriptText(code: string): string {
  return code.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** Style text safe inside `<style>`. */
function styleText(css: string): string {
  return css.replace(/<\/(style)/gi, '<\\/$1');
}

const colourPattern = /^#[0-9a-f]{6}$/i;
/** A run's colour, only if it is one: it goes into a style attribute. */
const colourOf = (run: { readonly colour: string }) =>
  colourPattern.test(run.colour) ? run.colour : '#888888';

const text = (value: InputValue | undefined) => escapeHtml(formatDiffValue(value));
/** A number as people read it, its exact value kept in `<data value>` (what tests and tools read). */
const number = (value: number | undefined) =>
  value === undefined
    ? '—'
    : `<data value="${escapeHtml(String(value))}">${escapeHtml(formatValue(value))}</data>`;

function swatch(run: { readonly colour: string }): string {
  return `<span class="swatch" style="background:${colourOf(run)}"></span>`;
}

function runsTable(data: ReportData): string {
  const params = [...new Set(data.runs.flatMap((r) => Object.keys(r.params)))].sort();
  const head = ['Run', 'Flow', 'Status', ...params, 'seed']
    .map((h) => `<th scope="col">${escapeHtml(h)}</th>`)
    .join('');
  const rows = data.runs.map((run) => {
    const cells: string[] = [
      `<th scope="row">${swatch(run)}${escapeHtml(run.label)}<br><code>${escapeHtml(run.id)}</code></th>`,
      `<td>${escapeHtml(run.flow)}</td>`,
      `<td>${escapeHtml(run.status)}</td>`,
      ...params.map((p) => `<td>${p in run.params ? text(run.params[p]) : '—'}</td>`),
      `<td>${escapeHtml(String(run.seed))}</td>`,
    ];
    return `<tr>${cells.join('')}</tr>`;
  });
  return `<table aria-label="Runs"><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function fingerprintsTable(data: ReportData): string {
  const labels = [...new Set(data.runs.flatMap((r) => r.facts.map((f) => f.label)))];
  const head = data.runs.map((r) => `<th scope="col">${escapeHtml(r.label)}</th>`).join('');
  const rows = labels.map((label) => {
    const cells = data.runs.map(
      (r) => `<td>${escapeHtml(r.facts.find((f) => f.label === label)?.value ?? '—')}</td>`,
    );
    return `<tr><th scope="row">${escapeHtml(label)}</th>${cells.join('')}</tr>`;
  });
  return `<table aria-label="Fingerprints"><thead><tr><th scope="col">Fact</th>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The last non-null value, or undefined. */
const lastOf = (values: readonly (number | null)[]) =>
  values.findLast((v) => v !== null) ?? undefined;

function chartFigures(data: ReportData): string {
  return data.metrics
    .map((metric, i) => {
      const legend = metric.groups
        ? metric.groups.map((group) => {
            const n = group.runs.length;
            const last = lastOf(group.smoothed ?? group.mean);
            return `<li>${swatch(group)}${escapeHtml(group.label)} <span class="muted">· mean of ${String(n)} run${n === 1 ? '' : 's'}${group.band ? ', min–max band' : ''}</span> <span class="last">last ${number(last)}</span></li>`;
          })
        : metric.series.map((series) => {
            const run = data.runs.find((r) => r.id === series.run);
            if (!run) return '';
            const last = lastOf(series.value);
            return `<li>${swatch(run)}${escapeHtml(run.label)} <span class="last">last ${number(last)}</span></li>`;
          });
      return `<figure class="chart"><figcaption>${escapeHtml(metric.name)}</figcaption><div class="plot" role="img" aria-label="${escapeHtml(`Chart: ${metric.name}`)}" data-metric="${String(i)}" title="Drag to zoom, double-click to reset"></div><ul aria-label="${escapeHtml(`Legend: ${metric.name}`)}">${legend.join('')}</ul></figure>`;
    })
    .join('');
}

const PC_WIDTH = 900;
const PC_HEIGHT = 260;
const PC_MARGIN = { top: 30, bottom: 30, side: 60 };

/**
 * The parallel coordinates as SVG, set as they were on screen: the axes shown,
 * log and flipped axes, lines coloured by the chosen axis's ramp, and the
 * brushes drawn, with the runs outside them faint.
 */
function parallelCoordinates(data: ReportData): string {
  const view = data.parallel;
  const runs: ParallelRun[] = data.runs.map((r) => ({
    id: r.id,
    params: r.params,
    seed: r.seed,
    result: r.result,
    finals: r.finals,
  }));
  const allAxes = parallelAxes(runs);
  const hidden = new Set(view?.hidden ?? []);
  const axes = allAxes.filter((axis) => !hidden.has(axis.key));
  if (runs.length < 2 || axes.length < 2) return '';
  const scales = view?.scales ?? {};
  const brushes = Object.fromEntries(
    Object.entries(view?.brushes ?? {}).filter(([key]) => axes.some((a) => a.key === key)),
  );
  const brushing = Object.keys(brushes).length > 0;
  const inside = new Set(runsInBrushes(runs, axes, brushes, scales));
  const colourAxis = colourAxisOf(allAxes, view?.colourBy);
  const step = (PC_WIDTH - 2 * PC_MARGIN.side) / (axes.length - 1);
  const span = PC_HEIGHT - PC_MARGIN.top - PC_MARGIN.bottom;
  const xAt = (i: number) => PC_MARGIN.side + i * step;
  const yAt = (at: number) => PC_MARGIN.top + (1 - at) * span;
  const line = (run: ParallelRun) => {
    const points = axes.flatMap((axis, i) => {
      const at = axisPosition(axis, run, scales[axis.key]);
      return at === undefined ? [] : [`${xAt(i).toFixed(1)},${yAt(at).toFixed(1)}`];
    });
    const kept = !brushing || inside.has(run.id);
    const stroke = kept
      ? rampColour(colourAxis && axisPosition(colourAxis, run, scales[colourAxis.key]))
      : '#c9ced6';
    const label = data.runs.find((r) => r.id === run.id)?.label ?? run.id;
    return `<polyline fill="none" stroke="${stroke}" stroke-width="${kept ? '1.5' : '1'}"${kept ? '' : ' class="outside"'} points="${points.join(' ')}"><title>${escapeHtml(label)}</title></polyline>`;
  };
  // Runs outside the brushes first, faint; those inside over them, in colour.
  const lines = [
    ...runs.filter((run) => brushing && !inside.has(run.id)),
    ...runs.filter((run) => !brushing || inside.has(run.id)),
  ].map(line);
  const axisMarks = axes.map((axis, i) => {
    const x = xAt(i).toFixed(1);
    const scale = scales[axis.key] ?? {};
    const tick = (at: number) => {
      const value = axisValueAt(axis, at, scale);
      return typeof value === 'number' ? formatValue(value) : value;
    };
    const notes = [scale.log && 'log', scale.flip && 'flipped'].filter(Boolean).join(', ');
    const brush = brushes[axis.key];
    const band = brush
      ? `<rect class="brush" x="${(xAt(i) - 8).toFixed(1)}" width="16" y="${yAt(brush[1]).toFixed(1)}" height="${(yAt(brush[0]) - yAt(brush[1])).toFixed(1)}"/>`
      : '';
    return (
      `<g role="group" aria-label="${escapeHtml(`Axis ${axis.label}${notes ? ` (${notes})` : ''}`)}">` +
      `<line x1="${x}" x2="${x}" y1="${String(PC_MARGIN.top)}" y2="${String(PC_HEIGHT - PC_MARGIN.bottom)}" stroke="#1f2328"/>${band}` +
      `<text x="${x}" y="14" text-anchor="middle">${escapeHtml(axis.label)}${notes ? ` <tspan class="tick">(${escapeHtml(notes)})</tspan>` : ''}</text>` +
      `<text x="${x}" y="${String(PC_HEIGHT - 8)}" text-anchor="middle" class="tick">${escapeHtml(tick(0))}</text>` +
      `<text x="${x}" y="${String(PC_MARGIN.top - 4)}" text-anchor="middle" class="tick">${escapeHtml(tick(1))}</text></g>`
    );
  });
  const caption = [
    colourAxis && `Coloured by ${colourAxis.label}`,
    brushing && `${String(inside.size)} of ${String(runs.length)} runs inside the brushes`,
  ]
    .filter(Boolean)
    .join(' · ');
  return `<section aria-label="Parallel coordinates"><h2>Parallel coordinates</h2><p class="muted">${escapeHtml(caption)}</p><svg role="img" aria-label="Parallel coordinates" viewBox="0 0 ${String(PC_WIDTH)} ${String(PC_HEIGHT)}" width="${String(PC_WIDTH)}" height="${String(PC_HEIGHT)}">${lines.join('')}${axisMarks.join('')}</svg></section>`;
}

function runDiff(data: ReportData): string {
  const diff = data.diff;
  if (!diff) return '';
  const name = (id: string) => escapeHtml(data.runs.find((r) => r.id === id)?.label ?? id);
  const head = `<thead><tr><th scope="col"></th><th scope="col">A: ${name(diff.a)}</th><th scope="col">B: ${name(diff.b)}</th><th scope="col"></th></tr></thead>`;
  const params = diff.params
    .map(
      (p) =>
        `<tr${p.same ? '' : ' class="differs"'}><th scope="row">${escapeHtml(p.name)}</th><td>${text(p.a)}</td><td>${text(p.b)}</td><td>${p.same ? '' : 'differs'}</td></tr>`,
    )
    .join('');
  const finals = diff.metrics
    .map(
      (m) =>
        `<tr${m.identical || m.within !== undefined ? '' : ' class="differs"'}><th scope="row">${escapeHtml(m.metric)}</th><td>${number(m.a)}</td><td>${number(m.b)}</td><td>${m.identical ? 'identical' : m.within !== undefined ? `within ${m.within}` : 'differs'}</td></tr>`,
    )
    .join('');
  const prints = diff.fingerprints
    .map(
      (f) =>
        `<tr${f.same ? '' : ' class="differs"'}><th scope="row">${escapeHtml(f.label)}</th><td>${escapeHtml(f.a)}</td><td>${escapeHtml(f.b)}</td><td>${f.same ? '' : 'differs'}</td></tr>`,
    )
    .join('');
  const flow =
    diff.flow.length === 0
      ? '<p>The two flows compute the same (layout aside).</p>'
      : `<ul>${diff.flow.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`;
  return (
    `<section aria-label="Run diff"><h2>Run diff</h2>` +
    `<table aria-label="Params">${head}<tbody>${params}</tbody></table>` +
    `<section aria-label="Flow changes"><h3>Flow changes</h3>${flow}</section>` +
    `<h3>Final values</h3><table aria-label="Final values">${head}<tbody>${finals}</tbody></table>` +
    `<h3>Fingerprints</h3><table aria-label="Fingerprint differences">${head}<tbody>${prints}</tbody></table></section>`
  );
}

/**
 * Draws each chart of the report with uPlot. Inlined into the file as its
 * source text (`toString`), so it must use nothing but its arguments and the
 * browser's globals. (A transpiler that keeps function names, as esbuild's
 * `keepNames` does, wraps inner functions in `__name(…)`: the inlined script
 * defines a `__name` that does nothing, so the text runs however it was built.)
 */
function viewReport(data: ReportData, UPlot: typeof uPlot): void {
  const xLabel = { step: 'step', wall: 'wall time (s)', relative: 'relative time (s)' }[
    data.settings.xMode
  ];
  const logX = data.settings.logX && data.settings.xMode !== 'wall';
  for (const element of Array.from(document.querySelectorAll<HTMLElement>('[data-metric]'))) {
    const metric = data.metrics[Number(element.dataset.metric)];
    if (!metric) continue;
    let points = 0;
    const drop = (value: number | null) =>
      data.settings.log && value !== null && value <= 0 ? null : value;
    const tables: uPlot.AlignedData[] = [];
    const series: uPlot.Series[] = [{ label: xLabel }];
    const bands: uPlot.Band[] = [];
    /** One table of columns over `xs`, keeping only the x a log axis can show. */
    const table = (xs: readonly number[], columns: readonly (readonly (number | null)[])[]) => {
      const kept = xs.flatMap((x, i) => (logX && !(x > 0) ? [] : [i]));
      points += kept.length;
      const out: uPlot.AlignedData = [
        kept.map((i) => xs[i]!),
        ...columns.map((column) => kept.map((i) => drop(column[i] ?? null))),
      ];
      tables.push(out);
    };
    if (metric.groups) {
      // As the charts draw a group: its band (max, min) filled, then its mean (or smoothed mean
      // over the faint raw one) on top.
      for (const group of metric.groups) {
        const columns: (readonly (number | null)[])[] = [];
        if (group.band) {
          columns.push(group.band.high, group.band.low);
          const high = series.length;
          series.push(
            { label: `${group.label} max`, stroke: 'transparent', width: 0, spanGaps: true },
            { label: `${group.label} min`, stroke: 'transparent', width: 0, spanGaps: true },
          );
          bands.push({ series: [high, high + 1], fill: `${group.colour}33` });
        }
        if (group.smoothed) {
          columns.push(group.mean, group.smoothed);
          series.push(
            {
              label: `${group.label} (raw)`,
              stroke: `${group.colour}4d`,
              width: 1,
              spanGaps: true,
            },
            { label: group.label, stroke: group.colour, width: 1.5, spanGaps: true },
          );
        } else {
          columns.push(group.mean);
          series.push({ label: group.label, stroke: group.colour, width: 1.5, spanGaps: true });
        }
        table(group.x, columns);
      }
    } else {
      for (const s of metric.series) {
        const run = data.runs.find((r) => r.id === s.run);
        if (!run) continue;
        const xs = s.step.map((step, i) => {
          const ts = s.ts[i] ?? 0;
          return data.settings.xMode === 'step'
            ? step
            : data.settings.xMode === 'wall'
              ? ts
              : ts - (s.ts[0] ?? 0);
        });
        // Smoothed, the recorded values show faint behind the smoothed line, as in the app.
        if (s.smoothed) {
          table(xs, [s.value, s.smoothed]);
          series.push(
            { label: `${run.label} (raw)`, stroke: `${run.colour}4d`, width: 1, spanGaps: true },
            { label: run.label, stroke: run.colour, width: 1.5, spanGaps: true },
          );
        } else {
          table(xs, [s.value]);
          series.push({ label: run.label, stroke: run.colour, width: 1.5, spanGaps: true });
        }
      }
    }
    const aligned =
      tables.length === 1
        ? tables[0]!
        : tables.length === 0
          ? ([[]] as uPlot.AlignedData)
          : UPlot.join(tables);
    new UPlot(
      {
        width: Math.max(320, element.clientWidth),
        height: 260,
        scales: {
          // uPlot's Distr is an ambient const enum, out of reach under isolatedModules: 3 is
          // logarithmic, 1 linear.
          x: { time: data.settings.xMode === 'wall', distr: logX ? 3 : 1 },
          y: { distr: data.settings.log ? 3 : 1 },
        },
        axes: [{ label: xLabel }, { size: 60 }],
        series,
        bands,
      },
      aligned,
      element,
    );
    element.dataset.points = String(points);
    element.dataset.bands = String(bands.length);
    element.dataset.drawn = 'true';
  }
}

const style = `
body { font: 14px system-ui, sans-serif; color: #1f2328; margin: 24px; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; vertical-align: top; }
tr.differs { background: #fff4ce; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 6px; border-radius: 2px; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 16px; }
figure.chart { margin: 0; }
figure.chart ul { list-style: none; padding: 0; margin: 4px 0; }
svg text { font-size: 11px; }
svg text.tick, svg tspan.tick { fill: #59636e; }
svg rect.brush { fill: rgba(31, 78, 121, 0.18); stroke: rgba(31, 78, 121, 0.8); }
p.muted { color: #59636e; margin: 4px 0; }
span.muted { color: #59636e; }
code { font-size: 12px; color: #59636e; }
`;

/** The report as one HTML file: every part inlined, every inlined name escaped. */
export function reportHtml(report: ReportData, assets: ReportAssets): string {
  // A colour goes into style attributes and the charts' strokes: only a real one.
  const data: ReportData = {
    ...report,
    runs: report.runs.map((run) => ({ ...run, colour: colourOf(run) })),
    metrics: report.metrics.map((metric) =>
      metric.groups
        ? {
            ...metric,
            groups: metric.groups.map((group) => ({ ...group, colour: colourOf(group) })),
          }
        : metric,
    ),
  };
  const groupBy = data.settings.groupBy ?? null;
  const grouping =
    groupBy === null
      ? ''
      : `<p class="muted">Runs grouped by ${escapeHtml(groupBy)}: each group’s mean, its min–max band shaded.</p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(data.title)}</title>
<style>${styleText(assets.uplotStyle)}</style>
<style>${style}</style>
</head>
<body>
<header><h1>${escapeHtml(data.title)}</h1><p>Made by Flowbench on <time datetime="${escapeHtml(data.created)}">${escapeHtml(data.created)}</time>: ${String(data.runs.length)} run${data.runs.length === 1 ? '' : 's'}.</p></header>
<section aria-label="Runs"><h2>Runs</h2>${runsTable(data)}</section>
<section aria-label="Charts"><h2>Charts</h2>${grouping}<div class="charts">${chartFigures(data)}</div></section>
${parallelCoordinates(data)}
${runDiff(data)}
<section aria-label="Fingerprints"><h2>What each run ran on</h2>${fingerprintsTable(data)}</section>
<script>${scriptText(assets.uplotScript)}</script>
<script type="application/json" id="flowbench-report-data">${jsonForScript(data)}</script>
<script>(function () { var __name = function (f) { return f; }; (${scriptText(viewReport.toString())})(JSON.parse(document.getElementById('flowbench-report-data').textContent), uPlot); })();</script>
</body>
</html>
`;
}

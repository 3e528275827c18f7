import { describe, expect, it } from 'vitest';
import { escapeHtml, jsonForScript, reportHtml } from './html';
import type { ReportData } from './report-data';

/** Names that would run or load something if any reached the page unescaped. */
const hostile = {
  script: '</script><script>window.pwned = 1</script>',
  html: '<img src=x onerror="window.pwned = 2"><b>bold</b>',
  url: 'javascript:window.pwned = 3',
  comment: '<!-- <script>',
};
const names = Object.values(hostile);

/** A comparison of two runs whose every name is hostile. */
function hostileReport(): ReportData {
  const [script, html, url, comment] = names as [string, string, string, string];
  const run = (id: string, lr: number) => ({
    id,
    label: `${html} ${id}`,
    colour: id === 'a' ? '#4e79a7' : 'red;background:url(javascript:alert(1))',
    flow: script,
    status: 'ok',
    seed: 0,
    params: { [url]: lr, [comment]: script },
    result: { [html]: lr },
    facts: [{ label: script, value: url }],
    finals: { [script]: lr },
  });
  return {
    title: `Flowbench report: ${script}`,
    created: '2026-12-02T00:00:00.000Z',
    settings: { xMode: 'step', log: false, logX: false, smoothing: 0 },
    runs: [run('a', 0.1), run('b', 0.2)],
    parallel: null,
    metrics: [
      {
        name: script,
        series: ['a', 'b'].map((id) => ({
          run: id,
          step: [0, 1, 2],
          value: [3, 2, null],
          ts: [1, 2, 3],
        })),
      },
    ],
    diff: {
      a: 'a',
      b: 'b',
      params: [{ name: url, a: html, b: script, same: false }],
      flow: [`${script}: added (${html})`],
      fingerprints: [{ key: 'k', label: html, a: url, b: script, same: false }],
      metrics: [{ metric: script, a: 2, b: 2, aPoints: 3, bPoints: 3, identical: true }],
    },
  };
}

const assets = { uplotScript: 'var uPlot = function () {};', uplotStyle: '.u-wrap{}' };

describe('a portable report', () => {
  const html = reportHtml(hostileReport(), assets);

  it('holds only its own elements and attributes, whatever the names hold', () => {
    const tags = new Set([...html.matchAll(/<([a-zA-Z][\w-]*)/g)].map((m) => m[1]!.toLowerCase()));
    for (const tag of ['img', 'b', 'iframe', 'object', 'a']) expect(tags).not.toContain(tag);
    // Its three scripts: uPlot, the data (JSON, not run), the viewer.
    expect(html.match(/<script/gi)).toHaveLength(3);
    expect(html.match(/<\/script/gi)).toHaveLength(3);
    expect(html).toContain('<script type="application/json" id="flowbench-report-data">');
    const attributes = new Set(
      [...html.matchAll(/<[a-zA-Z][^>]*>/g)].flatMap((tag) =>
        // Quoted values left out: an escaped name inside one is no attribute.
        [...tag[0].replace(/"[^"]*"/g, '""').matchAll(/\s([a-zA-Z-]+)=/g)].map((m) =>
          m[1]!.toLowerCase(),
        ),
      ),
    );
    expect(
      [...attributes].filter((a) => a.startsWith('on') || a === 'href' || a === 'src'),
    ).toEqual([]);
    // A colour that is not one never reaches a style attribute.
    expect(html).not.toContain('url(javascript');
  });

  it('shows every name as text', () => {
    for (const name of names) expect(html).toContain(escapeHtml(name));
    expect(html).toContain('&lt;/script&gt;&lt;script&gt;window.pwned = 1&lt;/script&gt;');
  });

  it('carries its data as JSON that gives back exactly what went in', () => {
    const inlined = /id="flowbench-report-data">([^<]*)<\/script>/.exec(html)?.[1];
    expect(inlined).toBeDefined();
    const sent = hostileReport();
    // The one change: a colour that is not one is replaced.
    const expected = {
      ...sent,
      runs: sent.runs.map((r, i) => (i === 1 ? { ...r, colour: '#888888' } : r)),
    };
    expect(JSON.parse(inlined!)).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(jsonForScript('</script>&\u2028')).toBe('"\\u003c/script\\u003e\\u0026\\u2028"');
  });

  it('draws the parallel coordinates as they were set: axes shown, log and flipped, brushed', () => {
    const run = (id: string, lr: number, batch: number, loss: number) => ({
      id,
      label: id,
      colour: '#4e79a7',
      flow: 'f',
      status: 'ok',
      seed: 0,
      params: { lr, batch },
      result: {},
      facts: [],
      finals: { loss },
    });
    const report: ReportData = {
      ...hostileReport(),
      runs: [run('a', 0.001, 8, 1), run('b', 0.01, 16, 2), run('c', 0.1, 32, 3)],
      diff: null,
      parallel: {
        hidden: ['param:batch'],
        scales: { 'param:lr': { log: true, flip: true } },
        brushes: { 'metric:loss': [0.5, 1] },
        colourBy: 'param:lr',
      },
    };
    const page = reportHtml(report, assets);
    const svg =
      /<svg role="img" aria-label="Parallel coordinates".*?<\/svg>/s.exec(page)?.[0] ?? '';
    expect(svg).not.toContain('Axis batch');
    expect(svg).toContain('aria-label="Axis lr (log, flipped)"');
    // Flipped: the largest learning rate at the bottom of its axis, the smallest at the top.
    const lrAxis = /aria-label="Axis lr \(log, flipped\)">(.*?)<\/g>/s.exec(svg)?.[1] ?? '';
    const ticks = [...lrAxis.matchAll(/<text[^>]*class="tick">([^<]*)</g)].map((m) => m[1]);
    expect(ticks).toEqual(['0.1', '0.001']);
    // Loss 1 is below the brush: its line is faint, the two inside are in the ramp's colours.
    expect(svg.match(/<polyline/g)).toHaveLength(3);
    expect(svg.match(/class="outside"/g)).toHaveLength(1);
    expect(svg).toMatch(/<polyline[^>]*class="outside"[^>]*><title>a</);
    expect(svg.match(/<rect class="brush"/g)).toHaveLength(1);
    expect(page).toContain('Coloured by lr · 2 of 3 runs inside the brushes');
  });
});

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
});

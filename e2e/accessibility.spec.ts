/**
 * Accessibility: axe-core audits the main views as a person meets them: the
 * workbench on first open, a finished run selected with its charts drawn and
 * a node in the inspector, and the examples dialog. A view fails on any
 * serious or critical violation, each listed with the elements it was found
 * on; the moderate and minor ones are attached to the report.
 *
 * Rules: axe's default set (WCAG 2.x A and AA, best practices) plus
 * `label-content-name-mismatch`, which axe ships switched off: a control's
 * accessible name must contain the text it shows, so a person who speaks to
 * the page can name what they see.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page, TestInfo } from '@playwright/test';
import { expect, test } from './fixtures';

type Violation = Awaited<ReturnType<AxeBuilder['analyze']>>['violations'][number];

const BLOCKING = new Set(['serious', 'critical']);

/** One violation, readably: the rule, its impact, what it asks, and where. */
function describe(violation: Violation): string {
  const where = violation.nodes.map((node) => {
    const why = (node.failureSummary ?? '').replace(/\s+/g, ' ').trim();
    return `    ${node.target.join(' ')}\n      ${why}`;
  });
  return [
    `${violation.id} (${violation.impact ?? 'no impact'}, ${violation.nodes.length} elements): ${violation.help}`,
    `  ${violation.helpUrl}`,
    ...where,
  ].join('\n');
}

/** Run axe on the page as it is now; fail on serious or critical violations. */
async function audit(page: Page, testInfo: TestInfo, view: string): Promise<void> {
  const results = await new AxeBuilder({ page })
    .options({ rules: { 'label-content-name-mismatch': { enabled: true } } })
    .analyze();
  const blocking = results.violations.filter((v) => BLOCKING.has(v.impact ?? ''));
  const others = results.violations.filter((v) => !BLOCKING.has(v.impact ?? ''));
  if (others.length > 0)
    await testInfo.attach(`${view}: moderate and minor violations`, {
      body: others.map(describe).join('\n\n'),
      contentType: 'text/plain',
    });
  expect(
    blocking.map(describe).join('\n\n'),
    `serious or critical accessibility violations on ${view}`,
  ).toBe('');
}

test('the workbench on first open', async ({ app, page }, testInfo) => {
  await expect(app.canvas.nodes.first()).toBeVisible();
  await audit(page, testInfo, 'the workbench on first open');
});

test('a finished run, selected, with its charts and a node in the inspector', async ({
  page,
  params,
  toolbar,
  runs,
  charts,
  canvas,
  inspector,
}, testInfo) => {
  await params.set('steps', 20);
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  await runs.select(runs.newest);
  await charts.expectDrawn('train.loss');
  await canvas.select('train');
  await expect(inspector.root).toBeVisible();
  await audit(page, testInfo, 'a selected run');
});

test('the examples dialog', async ({ app, page }, testInfo) => {
  await page.getByRole('button', { name: 'Examples', exact: true }).click();
  const gallery = page.getByRole('dialog', { name: 'Examples' });
  await expect(gallery.getByRole('button', { name: 'spirals-mlp' })).toBeVisible();
  await expect(app.canvas.nodes.first()).toBeVisible();
  await audit(page, testInfo, 'the examples dialog');
});

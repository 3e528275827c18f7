/**
 * A sweep of many finished runs for the in-app bench parts, imported rather
 * than run (seconds instead of minutes): run files made from one recorded
 * run (its loss series included), lr, batch and seed varied, one group.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { repoRoot } from './servers';

/** lr takes 4 values and batch 5: `lr=0.1 batch=8` (i % 20 = 0) picks out a twentieth of them. */
export function sweepFiles(count: number): { name: string; mimeType: string; buffer: Buffer }[] {
  const template = JSON.parse(
    readFileSync(path.join(repoRoot, 'e2e/flows/non-finite.run.json'), 'utf8'),
  ) as { run: Record<string, unknown> };
  return Array.from({ length: count }, (_, i) => {
    const id = `0193a1b2-c3d4-7e5f-8a6b-${i.toString(16).padStart(12, '0')}`;
    const run = {
      ...template.run,
      id,
      params: { lr: 10 ** -(1 + (i % 4)), batch: 2 ** (3 + (i % 5)), steps: 50 },
      seed: i,
      groupId: `bench-sweep-${count}`,
      status: 'ok',
      statusReason: '',
      result: { accuracy: ((i * 7919) % count) / count },
    };
    return {
      name: `${id}.run.json`,
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify({ ...template, run })),
    };
  });
}

/** Import a sweep of `count` runs into the app on `page`; resolves when the table counts them. */
export async function importSweep(page: Page, count: number): Promise<void> {
  await page.getByRole('banner').getByLabel('Import').setInputFiles(sweepFiles(count));
  await page
    .getByRole('status', { name: 'Run count' })
    .getByText(`${count.toLocaleString('en-US')} runs`, { exact: true })
    .waitFor({ timeout: 300_000 });
}

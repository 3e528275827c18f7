/** The `Runs` table and the selected run's panel: status, charts, Export run, Re-run. */
import { expect, type Locator, type Page } from '@playwright/test';
import { downloadJson, type DownloadedJson } from '../support/files';
import type { RunFile } from '../support/formats';

export class Runs {
  readonly table: Locator;
  /** One row per run, newest first (the header row and the empty-table note excluded). */
  readonly rows: Locator;
  /** The note the table shows while it has no runs. */
  readonly emptyNote: Locator;
  /** The selected run's panel. */
  readonly detail: Locator;
  readonly exportButton: Locator;

  constructor(private readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Runs' });
    const note = page.getByRole('cell', { name: /^No runs yet/ });
    this.emptyNote = this.table.getByRole('row').locator(note);
    this.rows = this.table
      .getByRole('row')
      .filter({ has: page.getByRole('cell') })
      .filter({ hasNot: note });
    this.detail = page.getByRole('region', { name: 'Run', exact: true });
    this.exportButton = this.detail.getByRole('button', { name: 'Export run' });
  }

  /** The newest run's row. */
  get newest(): Locator {
    return this.rows.first();
  }

  /** The row of run `id` (the table shows the id's tail; the full id is the cell's title). */
  row(id: string): Locator {
    return this.rows.filter({ has: this.page.locator(`td[title="${id}"]`) });
  }

  /** The cell that holds a row's status word, alone. */
  statusCell(row: Locator, status: string): Locator {
    return row.getByRole('cell', { name: status, exact: true });
  }

  /** Wait until a row shows `status`; `timeout` for runs known to be slow (WebGPU on a software adapter). */
  async expectStatus(row: Locator, status: string, options?: { timeout?: number }): Promise<void> {
    await expect(this.statusCell(row, status)).toBeVisible(options);
  }

  async select(row: Locator): Promise<void> {
    await row.click();
    await expect(row).toHaveAttribute('aria-selected', 'true');
  }

  /** A metric chart of the selected run. */
  chart(metric: string): Locator {
    return this.page.getByRole('img', { name: `Chart: ${metric}` });
  }

  /** How many points a chart holds now (0 while it is not drawn yet). */
  async chartPoints(metric: string): Promise<number> {
    const chart = this.chart(metric);
    if ((await chart.count()) === 0) return 0;
    return Number((await chart.getAttribute('data-points')) ?? 'NaN');
  }

  async exportRun(): Promise<DownloadedJson<RunFile>> {
    return downloadJson<RunFile>(this.page, () => this.exportButton.click());
  }
}

/** The run diff: `Diff picked` in the runs toolbar opens the dialog `Run diff` for two picked runs. */
import { expect, type Locator, type Page } from '@playwright/test';

export class RunDiff {
  /** Enabled while exactly two runs are picked. */
  readonly button: Locator;
  readonly dialog: Locator;
  /** Param, A, B, `same`/`differs`: one row per param of either run, the seed last. */
  readonly params: Locator;
  /** Run, flow, status, duration and params digest of A and B. */
  readonly facts: Locator;
  /** One list item per change between the flows the runs ran (layout aside). */
  readonly flowChanges: Locator;
  /** The note shown instead of changes when the flows compute the same thing. */
  readonly flowsAlike: Locator;
  /** Metric, A's and B's final values, `same` when the series are identical. */
  readonly metrics: Locator;
  /** One row per fact of what the runs ran on. */
  readonly fingerprints: Locator;

  constructor(page: Page) {
    this.button = page.getByRole('button', { name: 'Diff picked' });
    this.dialog = page.getByRole('dialog', { name: 'Run diff' });
    this.params = this.dialog.getByRole('table', { name: 'Params' });
    this.facts = this.dialog.getByRole('table', { name: 'Runs compared' });
    const changes = this.dialog.getByRole('region', { name: 'Flow changes' });
    this.flowChanges = changes.getByRole('listitem');
    this.flowsAlike = changes.getByText(/^The flows compute the same thing/);
    this.metrics = this.dialog.getByRole('table', { name: 'Final values' });
    this.fingerprints = this.dialog.getByRole('table', { name: 'Fingerprints' });
  }

  async open(): Promise<void> {
    await this.button.click();
    await expect(this.dialog).toBeVisible();
    await expect(this.params).toBeVisible();
  }

  async close(): Promise<void> {
    await this.dialog.getByRole('button', { name: 'Close' }).click();
    await expect(this.dialog).toBeHidden();
  }

  /** A row of `table` by its header (param, metric, fact): its cells A, B and `same`/`differs`. */
  row(table: Locator, name: string): Locator {
    return table.getByRole('row').filter({
      has: table.page().getByRole('rowheader', { name, exact: true }),
    });
  }

  /** The row headers of `table`'s rows marked `differs`. */
  async differing(table: Locator): Promise<string[]> {
    const rows = table.getByRole('row').filter({
      has: table.page().getByRole('cell', { name: 'differs', exact: true }),
    });
    return rows.getByRole('rowheader').allInnerTexts();
  }
}

/** The selected run's program views: `Check parity` and its report, and the device pool. */
import { expect, type Locator, type Page } from '@playwright/test';

export class Programs {
  readonly checkParityButton: Locator;
  /** The parity check's panel and its verdict (role `status`). */
  readonly parity: Locator;
  readonly parityVerdict: Locator;
  /** One row per compared request output, metric or status. */
  readonly parityRows: Locator;
  /** The device pool view of the selected run. */
  readonly pool: Locator;
  readonly budgetField: Locator;
  readonly setBudgetButton: Locator;

  constructor(page: Page) {
    const detail = page.getByRole('region', { name: 'Run', exact: true });
    this.checkParityButton = detail.getByRole('button', { name: 'Check parity' });
    this.parity = detail.getByRole('region', { name: 'Parity check' });
    this.parityVerdict = this.parity.getByRole('status');
    this.parityRows = this.parity
      .getByRole('table', { name: 'Parity' })
      .getByRole('row')
      .filter({ has: page.getByRole('cell') });
    this.pool = detail.getByRole('region', { name: 'Device pool' });
    this.budgetField = this.pool.getByRole('spinbutton');
    this.setBudgetButton = this.pool.getByRole('button', { name: 'Set budget' });
  }

  /** Press `Check parity` and wait for the verdict. */
  async checkParity(): Promise<void> {
    await this.checkParityButton.click();
    await expect(this.parityVerdict).not.toContainText('Running the programs', {
      timeout: 90_000,
    });
  }

  /** The pool of one node's programs. */
  nodePool(node: string): Locator {
    return this.pool.getByRole('article', { name: `Pool of ${node}` });
  }

  async setBudgetMb(mb: number): Promise<void> {
    await this.budgetField.fill(String(mb));
    await this.setBudgetButton.click();
  }
}

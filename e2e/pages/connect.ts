/**
 * Connect, above the runs table: a run server's address and token, Connect /
 * Disconnect, and the line that says what it lists. Its remote runs are rows
 * of the `Runs` table (see runs.ts), each with a `remote` badge.
 */
import type { Locator, Page } from '@playwright/test';

export class Connect {
  readonly form: Locator;
  readonly address: Locator;
  readonly token: Locator;
  readonly connectButton: Locator;
  readonly disconnectButton: Locator;
  /** `http://127.0.0.1:8737: 3 remote runs` while connected. */
  readonly status: Locator;

  constructor(page: Page) {
    this.form = page.getByRole('form', { name: 'Run server' });
    this.address = this.form.getByRole('textbox', { name: 'Server URL' });
    this.token = this.form.getByLabel('Token');
    this.connectButton = this.form.getByRole('button', { name: 'Connect' });
    this.disconnectButton = this.form.getByRole('button', { name: 'Disconnect' });
    this.status = page.getByRole('status', { name: 'Run server status' });
  }

  /** Type the server's address and press Connect (the outcome is the caller's to wait for). */
  async connect(url: string): Promise<void> {
    await this.address.fill(url);
    await this.connectButton.click();
  }
}

/**
 * Connect, above the runs table: the _Run server_ disclosure (closed until
 * opened, remembered), in it a run server's address and token, Connect /
 * Disconnect; beside it the line that says what the server lists. Its remote runs are rows
 * of the `Runs` table (see runs.ts), each with a `remote` badge.
 */
import type { Locator, Page } from '@playwright/test';

export class Connect {
  /** The disclosure's button: `aria-expanded` says whether the form shows. */
  readonly toggle: Locator;
  readonly form: Locator;
  readonly address: Locator;
  readonly token: Locator;
  readonly connectButton: Locator;
  readonly disconnectButton: Locator;
  /** `http://127.0.0.1:8737: 3 remote runs` while connected. */
  readonly status: Locator;

  constructor(page: Page) {
    this.toggle = page.getByRole('button', { name: 'Run server', exact: true });
    this.form = page.getByRole('form', { name: 'Run server' });
    this.address = this.form.getByRole('textbox', { name: 'Server URL' });
    this.token = this.form.getByLabel('Token');
    this.connectButton = this.form.getByRole('button', { name: 'Connect' });
    this.disconnectButton = this.form.getByRole('button', { name: 'Disconnect' });
    this.status = page.getByRole('status', { name: 'Run server status' });
  }

  /** Opens the disclosure, unless it is open. */
  async open(): Promise<void> {
    if ((await this.toggle.getAttribute('aria-expanded')) !== 'true') await this.toggle.click();
  }

  /** Type the server's address and press Connect (the outcome is the caller's to wait for). */
  async connect(url: string): Promise<void> {
    await this.open();
    await this.address.fill(url);
    await this.connectButton.click();
  }
}

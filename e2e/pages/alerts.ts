/** Messages shown to the person (role `alert`): bad imports, bad params, refused connections. */
import { expect, type Locator, type Page } from '@playwright/test';

export class Alerts {
  readonly all: Locator;

  constructor(page: Page) {
    this.all = page.getByRole('alert');
  }

  /** Wait for a message that says every one of `parts`; returns it. */
  async expectMessage(...parts: (string | RegExp)[]): Promise<Locator> {
    const alert = this.all.filter({ hasText: parts[0] }).last();
    await expect(alert).toBeVisible();
    for (const part of parts) await expect(alert).toContainText(part);
    return alert;
  }
}

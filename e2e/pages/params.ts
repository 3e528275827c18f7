/** The `Run parameters` form: one labelled field per flow input. */
import type { Locator, Page } from '@playwright/test';

export class RunParameters {
  readonly form: Locator;

  constructor(page: Page) {
    this.form = page.getByRole('form', { name: 'Run parameters' });
  }

  field(input: string): Locator {
    return this.form.getByLabel(input, { exact: true });
  }

  async set(input: string, value: string | number): Promise<void> {
    await this.field(input).fill(String(value));
  }
}

/** The `Run parameters` form: one labelled field per flow input. */
import type { Locator, Page } from '@playwright/test';

export class RunParameters {
  readonly form: Locator;
  /** `Run sweep (n runs)`: enabled while a field holds a list (`a, b`) or a range (`0..2`). */
  readonly sweepButton: Locator;

  constructor(page: Page) {
    this.form = page.getByRole('form', { name: 'Run parameters' });
    this.sweepButton = this.form.getByRole('button', { name: /^Run sweep\b/ });
  }

  field(input: string): Locator {
    return this.form.getByLabel(input, { exact: true });
  }

  async set(input: string, value: string | number): Promise<void> {
    await this.field(input).fill(String(value));
  }

  async runSweep(): Promise<void> {
    await this.sweepButton.click();
  }
}

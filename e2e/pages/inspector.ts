/** The inspector: the selected node's params, its last outcome, and `Delete node`. */
import type { Locator, Page } from '@playwright/test';

export class Inspector {
  readonly root: Locator;
  readonly deleteButton: Locator;

  constructor(page: Page) {
    this.root = page.getByRole('region', { name: 'Inspector' });
    this.deleteButton = this.root.getByRole('button', { name: 'Delete node' });
  }

  /** The inspector's title names the node's id. */
  showing(id: string): Locator {
    return this.root.getByRole('heading').filter({ hasText: id });
  }

  /** The field of the selected node's param `name`. */
  param(name: string): Locator {
    return this.root.getByLabel(name, { exact: true });
  }

  async setParam(name: string, value: string | number): Promise<void> {
    await this.param(name).fill(String(value));
  }

  async deleteNode(): Promise<void> {
    await this.deleteButton.click();
  }
}

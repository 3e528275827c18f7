/** The left column: the `Flows` library and the node palette. */
import type { Locator, Page } from '@playwright/test';

export class Library {
  /** The list named `Flows`: one item per saved flow. */
  readonly flows: Locator;
  readonly palette: Locator;

  constructor(page: Page) {
    this.flows = page.getByRole('list', { name: 'Flows' });
    this.palette = page.getByRole('region', { name: 'Palette' });
  }

  /** The library entry that opens flow `name`. */
  flow(name: string): Locator {
    return this.flows.getByRole('button', { name, exact: true });
  }

  /** Add a node of the kind titled `title` (e.g. `MLP`) from the palette. */
  async addNode(title: string): Promise<void> {
    await this.palette.getByRole('button', { name: `Add ${title}`, exact: true }).click();
  }
}

/** The left column: the `Flows` library and the node palette. */
import { expect, type Locator, type Page } from '@playwright/test';

export class Library {
  /** The list named `Flows`: one item per saved flow. */
  readonly flows: Locator;
  /** One item per saved flow. */
  readonly items: Locator;
  readonly palette: Locator;

  constructor(private readonly page: Page) {
    this.flows = page.getByRole('list', { name: 'Flows' });
    this.items = this.flows.getByRole('listitem');
    this.palette = page.getByRole('region', { name: 'Palette' });
  }

  /** The library entry that opens flow `name`. */
  flow(name: string): Locator {
    return this.flows.getByRole('button', { name, exact: true });
  }

  /** The `Actions for <name>` menu's toggle (a disclosure: Rename, Duplicate, Delete). */
  actions(name: string): Locator {
    return this.flows.getByLabel(`Actions for ${name}`, { exact: true });
  }

  /** Choose `action` from flow `name`'s menu. */
  private async act(name: string, action: 'Rename' | 'Duplicate' | 'Delete'): Promise<void> {
    const item = this.items.filter({
      has: this.page.getByLabel(`Actions for ${name}`, { exact: true }),
    });
    const button = item.getByRole('button', { name: action, exact: true });
    // The menu stays open after an action: open it only when it is closed.
    if (!(await button.isVisible())) await this.actions(name).click();
    await expect(button).toBeVisible();
    await button.click();
  }

  /** Rename flow `name` to `to` from its menu, confirming with Enter. */
  async renameFlow(name: string, to: string): Promise<void> {
    await this.act(name, 'Rename');
    const field = this.flows.getByRole('textbox', { name: `New name for ${name}`, exact: true });
    await field.fill(to);
    await field.press('Enter');
  }

  /** Duplicate flow `name` from its menu: the copy opens. */
  async duplicateFlow(name: string): Promise<void> {
    await this.act(name, 'Duplicate');
  }

  /** The palette's button for the kind titled `title` (e.g. `MLP`): named `MLP (model)`. */
  kindButton(title: string): Locator {
    const escaped = title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return this.palette.getByRole('button', { name: new RegExp(`^${escaped} \\(\\w+\\)$`) });
  }

  /** Add a node of the kind titled `title` (e.g. `MLP`) from the palette. */
  async addNode(title: string): Promise<void> {
    await this.kindButton(title).click();
  }
}

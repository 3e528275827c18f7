/** The `History` panel: every edit of the open flow by name, Undo and Redo, and a jump to any entry. */
import type { Locator, Page } from '@playwright/test';

export class History {
  /** The list named `History`: `Opened`, then one entry per edit, oldest first. */
  readonly list: Locator;
  /** Each entry's button, in order (undone entries included). */
  readonly entries: Locator;
  /** The entry the flow is at now. */
  readonly current: Locator;
  readonly undoButton: Locator;
  readonly redoButton: Locator;

  constructor(page: Page) {
    this.list = page.getByRole('list', { name: 'History' });
    this.entries = this.list.getByRole('listitem').getByRole('button');
    this.current = this.list.locator('button[aria-current="step"]');
    const panel = page.locator('section').filter({ has: this.list });
    this.undoButton = panel.getByRole('button', { name: 'Undo', exact: true });
    this.redoButton = panel.getByRole('button', { name: 'Redo', exact: true });
  }

  entry(label: string): Locator {
    return this.entries.filter({ hasText: label });
  }

  /** Go back (or forward) to the state right after the entry `label`. */
  async jumpTo(label: string): Promise<void> {
    await this.list.getByRole('button', { name: label, exact: true }).click();
  }
}

/** The canvas's `Layout` toolbar (align, distribute, auto-layout, group) and the groups' frames. */
import { expect, type Locator, type Page } from '@playwright/test';

export type LayoutCommandName =
  | 'Align left'
  | 'Align centre'
  | 'Align right'
  | 'Align top'
  | 'Align middle'
  | 'Align bottom'
  | 'Distribute horizontally'
  | 'Distribute vertically'
  | 'Auto-layout'
  | 'Group'
  | 'Ungroup';

export class LayoutBar {
  readonly root: Locator;

  constructor(private readonly page: Page) {
    this.root = page.getByRole('toolbar', { name: 'Layout' });
  }

  button(name: LayoutCommandName): Locator {
    return this.root.getByRole('button', { name, exact: true });
  }

  async use(name: LayoutCommandName): Promise<void> {
    await this.button(name).click();
  }

  /** The frame of group `id`. */
  frame(id: string): Locator {
    return this.page.getByTestId(`group-${id}`);
  }

  /** A frame's title bar (drag it to move the group; double-click it to rename). */
  title(id: string): Locator {
    return this.frame(id).locator('.fb-group-title');
  }

  /** Rename group `id` by double-clicking its title, typing and pressing Enter. */
  async rename(id: string, title: string): Promise<void> {
    await this.title(id).dblclick();
    const field = this.frame(id).getByRole('textbox', { name: 'Group title' });
    await field.fill(title);
    await field.press('Enter');
    await expect(this.title(id)).toHaveText(title);
  }

  /** Drag group `id` by its title bar by (dx, dy) screen pixels. */
  async dragFrameBy(id: string, dx: number, dy: number): Promise<void> {
    const box = await this.title(id).boundingBox();
    if (!box) throw new Error(`group ${id} is not on screen`);
    const from = { x: box.x + 10, y: box.y + box.height / 2 };
    await this.page.mouse.move(from.x, from.y);
    await this.page.mouse.down();
    await this.page.mouse.move(from.x + dx, from.y + dy, { steps: 12 });
    await this.page.mouse.up();
  }
}

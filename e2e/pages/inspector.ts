/** The inspector: the selected node's params, its last outcome, and `Delete node`. */
import path from 'node:path';
import { expect, type Locator, type Page } from '@playwright/test';

/** A file as Playwright's `setInputFiles` takes it: a path, or a name with its bytes. */
export type PickedFile = string | { name: string; mimeType: string; buffer: Buffer };

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

  /**
   * Pick `file` for the file param `name` and wait until it is stored and the
   * param names it (its stored-file line). The field says `Keeping <name>…`
   * while the engine stores it and only then changes the param: a Run pressed
   * meanwhile runs with the file before.
   */
  async pickFile(file: PickedFile, name = 'file'): Promise<void> {
    await this.param(name).setInputFiles(file);
    const shown = typeof file === 'string' ? path.basename(file) : file.name;
    await expect(this.root.getByTestId('file-param-current')).toContainText(shown);
  }

  async deleteNode(): Promise<void> {
    await this.deleteButton.click();
  }
}

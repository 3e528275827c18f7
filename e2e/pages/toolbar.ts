/** The top bar: the open flow's name, Import, Export flow, Backend, Run, Cancel run. */
import { readFileSync } from 'node:fs';
import { expect, type Locator, type Page } from '@playwright/test';
import { downloadJson, type DownloadedJson } from '../support/files';
import type { FlowFile } from '../support/formats';

/** A file to import: a path on disk, or a name and its bytes. */
export type ImportFile = string | { name: string; text: string };

export class Toolbar {
  readonly root: Locator;
  /** The open flow's name. */
  readonly flowName: Locator;
  readonly importInput: Locator;
  /** How far an import of several files has got. */
  readonly importProgress: Locator;
  readonly exportFlowButton: Locator;
  readonly backend: Locator;
  readonly runButton: Locator;
  readonly cancelButton: Locator;
  /** `Use cache`: whether a run may take node outputs from the node-output cache. */
  readonly useCache: Locator;

  constructor(private readonly page: Page) {
    this.root = page.getByRole('banner');
    this.flowName = this.root.getByRole('heading', { level: 1 });
    this.importInput = this.root.getByLabel('Import');
    this.importProgress = this.root.getByRole('progressbar', { name: 'Import progress' });
    this.exportFlowButton = this.root.getByRole('button', { name: 'Export flow' });
    this.backend = this.root.getByRole('combobox', { name: 'Backend' });
    this.runButton = this.root.getByRole('button', { name: 'Run', exact: true });
    this.cancelButton = this.root.getByRole('button', { name: 'Cancel run' });
    this.useCache = this.root.getByRole('checkbox', { name: 'Use cache' });
  }

  /** Open the example `name` from the gallery as a new flow; resolves once it is the open flow. */
  async openExample(name: string): Promise<void> {
    await this.root.getByRole('button', { name: 'Examples', exact: true }).click();
    const gallery = this.page.getByRole('dialog', { name: 'Examples' });
    await gallery.getByRole('button', { name, exact: true }).click();
    await expect(gallery).toBeHidden();
    await expect(this.flowName).toHaveText(name);
  }

  async run(): Promise<void> {
    await this.runButton.click();
  }

  async cancelRun(): Promise<void> {
    await this.cancelButton.click();
  }

  async chooseBackend(choice: 'auto' | 'webgpu' | 'wasm'): Promise<void> {
    // The `auto` option's label says what it resolves to; its value stays `auto`.
    await this.backend.selectOption(choice);
  }

  async importFile(file: ImportFile): Promise<void> {
    await this.importInput.setInputFiles(
      typeof file === 'string'
        ? file
        : { name: file.name, mimeType: 'application/json', buffer: Buffer.from(file.text) },
    );
  }

  /**
   * Import a flow file and wait until it is the open flow: a click on one of its nodes before that
   * would land on the flow it replaces (both may have a node `data`).
   */
  async importFlow(file: string): Promise<void> {
    const { name } = JSON.parse(readFileSync(file, 'utf8')) as { name: string };
    await this.importFile(file);
    await expect(this.flowName).toHaveText(name);
  }

  async exportFlow(): Promise<DownloadedJson<FlowFile>> {
    return downloadJson<FlowFile>(this.page, () => this.exportFlowButton.click());
  }
}

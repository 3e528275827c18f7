/** The selected run's record in the `Run` panel: its fingerprint, node timings and artifacts. */
import type { Download, Locator, Page } from '@playwright/test';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export class RunRecord {
  readonly fingerprint: Locator;
  /** The table `Node timings`: a row per node (node, status, start, duration). */
  readonly nodeTimings: Locator;
  /** The table `Artifacts`: a row per artifact (name, node, size, digest, file). */
  readonly artifacts: Locator;
  /** The re-run's `What differs` group: what the two runs ran on, when a series did not reproduce. */
  readonly differences: Locator;

  constructor(private readonly page: Page) {
    const panel = page.getByRole('region', { name: 'Run', exact: true });
    this.fingerprint = panel.getByRole('region', { name: 'Fingerprint' });
    this.nodeTimings = panel.getByRole('table', { name: 'Node timings' });
    this.artifacts = panel.getByRole('table', { name: 'Artifacts' });
    this.differences = panel
      .getByRole('region', { name: 'Re-run comparison' })
      .getByRole('group', { name: 'What differs' });
  }

  /** A fingerprint fact's value, by its label (`App version`, `Backend` …). */
  fact(label: string): Locator {
    const term = this.page.getByRole('term').filter({ hasText: new RegExp(`^${escape(label)}$`) });
    return this.fingerprint.locator('dl > div').filter({ has: term }).getByRole('definition');
  }

  /** The row of node `id` in `Node timings`. */
  nodeRow(id: string): Locator {
    return this.nodeTimings
      .getByRole('row')
      .filter({ has: this.page.getByRole('rowheader', { name: id, exact: true }) });
  }

  /** The row of artifact `name`. */
  artifactRow(name: string): Locator {
    return this.artifacts
      .getByRole('row')
      .filter({ has: this.page.getByRole('rowheader', { name, exact: true }) });
  }

  downloadButton(name: string): Locator {
    return this.artifacts.getByRole('button', { name: `Download ${name}`, exact: true });
  }

  /** The `Download model (.onnx)` button of the model node `node` trained. */
  modelDownloadButton(node: string): Locator {
    return this.page
      .getByRole('region', { name: 'Run', exact: true })
      .getByRole('list', { name: 'Trained models' })
      .getByRole('button', { name: `Download model (.onnx) from ${node}`, exact: true });
  }

  /** Press `Download model (.onnx)` of `node`'s model and catch the file. */
  async downloadModel(node: string): Promise<Download> {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.modelDownloadButton(node).click(),
    ]);
    return download;
  }

  /** Press `Download <name>` and catch the file the browser is handed. */
  async download(name: string): Promise<Download> {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.downloadButton(name).click(),
    ]);
    return download;
  }
}

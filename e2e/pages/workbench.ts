/** The whole app in one page, as page objects per region. */
import { expect, type Locator, type Page } from '@playwright/test';
import { Alerts } from './alerts';
import { Canvas } from './canvas';
import { Charts } from './charts';
import { History } from './history';
import { Inspector } from './inspector';
import { Library } from './library';
import { RunParameters } from './params';
import { Runs } from './runs';
import { Toolbar } from './toolbar';
import type { RunFile } from '../support/formats';

export class Workbench {
  readonly toolbar: Toolbar;
  readonly canvas: Canvas;
  readonly charts: Charts;
  readonly runs: Runs;
  readonly params: RunParameters;
  readonly alerts: Alerts;
  readonly library: Library;
  readonly inspector: Inspector;
  readonly history: History;
  /** The `?` dialog that lists the keyboard shortcuts. */
  readonly shortcutsDialog: Locator;

  constructor(readonly page: Page) {
    this.toolbar = new Toolbar(page);
    this.canvas = new Canvas(page);
    this.charts = new Charts(page);
    this.runs = new Runs(page);
    this.params = new RunParameters(page);
    this.alerts = new Alerts(page);
    this.library = new Library(page);
    this.inspector = new Inspector(page);
    this.history = new History(page);
    this.shortcutsDialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  }

  /** Open the app and wait until a flow is on the canvas. */
  async open(): Promise<void> {
    await this.page.goto('/');
    await this.ready();
  }

  /**
   * Run the open flow on `backend` as the table's `count`th run, wait for it
   * to end `ok` (on WebGPU in software its first step compiles every shader:
   * minutes on a busy machine), and give its exported record.
   */
  async runOn(backend: 'webgpu' | 'wasm', count: number): Promise<RunFile> {
    await this.toolbar.chooseBackend(backend);
    await this.toolbar.run();
    await expect(this.runs.rows).toHaveCount(count);
    await this.runs.expectStatus(this.runs.newest, 'ok', { timeout: 240_000 });
    await this.runs.select(this.runs.newest);
    return (await this.runs.exportRun()).json;
  }

  /** Reload the page and wait until a flow is back on the canvas. */
  async reload(): Promise<void> {
    await this.page.reload();
    await this.ready();
  }

  private async ready(): Promise<void> {
    await expect(this.toolbar.flowName).not.toHaveText('…');
    await expect(this.canvas.nodes.first()).toBeVisible();
  }
}

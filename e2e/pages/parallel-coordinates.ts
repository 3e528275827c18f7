/**
 * The selected run's `Parallel coordinates` (of the picked runs, or of its
 * sweep): an axis per varying param and final metric; dragging along an axis
 * brushes it, and the Runs table shows only the runs inside.
 */
import type { Locator, Page } from '@playwright/test';

export class ParallelCoordinates {
  readonly root: Locator;
  /** The canvas: an image named `Parallel coordinates`, `data-runs` lines on it. */
  readonly plot: Locator;
  readonly clearButton: Locator;
  /** `3 runs · drag along an axis…`, or `1 of 3 runs inside the brushes`. */
  readonly summary: Locator;
  readonly colourBy: Locator;
  /** Every axis, left to right: a group named `Axis <name>`. */
  readonly axes: Locator;
  /** Beside them: which params drive a chosen metric (`Importance for`). */
  readonly importance: Locator;
  readonly importanceFor: Locator;

  constructor(private readonly page: Page) {
    this.root = page
      .getByRole('region', { name: 'Run', exact: true })
      .getByRole('region', { name: 'Parallel coordinates' });
    this.plot = this.root.getByRole('img', { name: 'Parallel coordinates' });
    this.clearButton = this.root.getByRole('button', { name: 'Clear brushes' });
    this.summary = this.root.getByRole('status', { name: 'Brushed runs' });
    this.colourBy = this.root.getByLabel('Colour by');
    this.axes = this.root.getByRole('group', { name: /^Axis / });
    this.importance = this.root.getByRole('region', { name: 'Parameter importance' });
    this.importanceFor = this.importance.getByRole('combobox', { name: 'Importance for' });
  }

  /** The params ranked for `metric`, most important first: `lr 0.93 · r −0.81`. */
  ranking(metric: string): Locator {
    return this.importance
      .getByRole('list', { name: `Importance for ${metric}` })
      .getByRole('listitem');
  }

  /** The scatter of `metric` against `param`, `data-points` dots on it. */
  scatter(metric: string, param: string): Locator {
    return this.importance.getByRole('img', { name: `Scatter: ${metric} against ${param}` });
  }

  axis(name: string): Locator {
    return this.root.getByRole('group', { name: `Axis ${name}`, exact: true });
  }

  async flip(name: string): Promise<void> {
    await this.axis(name)
      .getByRole('button', { name: `Flip ${name}` })
      .click();
  }

  /**
   * Drag along axis `name` from `from` to `to`, as fractions of its height
   * (0 its bottom, 1 its top), as a person brushes it.
   */
  async brush(name: string, from: number, to: number): Promise<void> {
    await this.plot.scrollIntoViewIfNeeded();
    const header = await this.axis(name).boundingBox();
    const plot = await this.plot.boundingBox();
    if (!header || !plot) throw new Error(`the axis ${name} is not on screen`);
    const top = Number(await this.plot.getAttribute('data-plot-top'));
    const bottom = Number(await this.plot.getAttribute('data-plot-bottom'));
    const x = header.x + header.width / 2;
    const y = (at: number) => plot.y + bottom - at * (bottom - top);
    await this.page.mouse.move(x, y(from));
    await this.page.mouse.down();
    await this.page.mouse.move(x, y(to), { steps: 8 });
    await this.page.mouse.up();
  }
}
